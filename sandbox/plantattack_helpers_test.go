package sandbox

import (
	"os"
	"strings"
	"testing"
)

// attackReport logs what the check said about r.
func attackReport(t *testing.T, what string, r *Result) {
	t.Helper()
	t.Logf("%s: exit=%d quarantined=%+v limits=%v stdout=%q stderr=%q", what, r.ExitCode, r.Quarantined, r.CheckLimits, r.Stdout, r.Stderr)
}

// attackHostStatus runs the host's git status in dir and fails when the
// marker exists afterwards (the host's git ran the agent's program).
func attackHostStatus(t *testing.T, f *plantFixture, dir string, args ...string) {
	t.Helper()
	if len(args) == 0 {
		args = []string{"status"}
	}
	out, err := hostGitRun(t, dir, args...)
	t.Logf("host git %v in %s: err=%v\n%s", args, dir, err, out)
	if _, err := os.Stat(f.marker); err == nil {
		b, _ := os.ReadFile(f.marker)
		t.Fatalf("ESCAPE: the host's git ran the agent's program (marker %s exists: %q)", f.marker, strings.TrimSpace(string(b)))
	}
}

// attackMarkerCmd is a shell command for git config values that records
// that it ran on the host.
func (f *plantFixture) attackMarkerCmd() string {
	return "touch " + f.marker
}
