package sandbox

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// TestLandlockRuleRefusesSwappedComponent: a rule's path is canonical when
// planned; if a directory on the way is replaced by a symlink before the
// helper adds the rule (the agent renames the real directory away and puts a
// link to somewhere else in its place), adding the rule fails instead of
// granting the link's target. The same rule on the real directory (the
// control) is added. Adding rules to a ruleset restricts nothing, so this
// runs in the test process.
func TestLandlockRuleRefusesSwappedComponent(t *testing.T) {
	requireKernel(t, false)
	base := tempWorkspace(t)
	for _, d := range []string{base + "/real/sub", base + "/elsewhere/sub"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	abi, err := landlockABI()
	if err != nil {
		t.Fatal(err)
	}
	rfd, err := buildRuleset(llConfig{abi: abi, restrictFS: true})
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(rfd)
	rule := llRule{path: base + "/real/sub", access: domain.AccessWrite}
	if err := addPathRule(rfd, rule, abi); err != nil {
		t.Fatalf("control: the rule on the real directory: %v", err)
	}
	// The swap: real is renamed away and a link to elsewhere takes its name.
	if err := os.Rename(base+"/real", base+"/real.old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(base+"/elsewhere", base+"/real"); err != nil {
		t.Fatal(err)
	}
	err = addPathRule(rfd, rule, abi)
	if err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("a rule through a swapped-in symlink was added (err %v)", err)
	}
}
