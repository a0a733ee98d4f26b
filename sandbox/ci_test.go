package sandbox

import (
	"os"
	"strconv"
	"testing"
)

// underCI reports whether the tests run in CI (CI=true, as CI services
// set it): there a test that cannot run must fail, not skip, so that a
// runner whose kernel cannot enforce the sandbox never passes by skipping.
func underCI() bool {
	v, err := strconv.ParseBool(os.Getenv("CI"))
	return err == nil && v
}

// missingPrerequisite ends a test that this machine cannot run: a failure
// under CI, a skip elsewhere (a developer's laptop may lack a feature).
func missingPrerequisite(t testing.TB, format string, args ...any) {
	t.Helper()
	if underCI() {
		t.Fatalf("CI=true and this machine cannot run the test: "+format, args...)
	}
	t.Skipf(format, args...)
}
