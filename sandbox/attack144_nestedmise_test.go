package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack144_NestedMiseConfigRewritten (review 144, medium: the
// person's next cd into the sub-project runs the agent's hook). The mise
// configs are launcher items read at the root, the cwd and, found by the
// walk, below them (otherLauncherItems): what a nested one names is kept
// read-only (protectLauncherRefs). The nested config itself is not: the
// person's sub/mise.toml (trusted with `mise trust`, which records the
// path, not the content) is written by a file tool (the write decision is
// allowed) and rewritten in place by a command (the check leaves it), and
// the agent's [hooks] enter runs at the person's next cd into sub (mise's
// hook-env), as the root mise.toml's would. So for the other names mise
// reads there (.mise.toml, mise/config.toml, .config/mise/config.toml,
// .rtx.toml).
//
// Control (TestAttack144_NestedMiseConfigRewrittenControl): the root's
// mise.toml, and a nested launcher item of readAtAnyDepth
// (sub/.tool-versions, which mise reads too), are refused to the decision
// and kept from the command.
func TestAttack144_NestedMiseConfigRewritten(t *testing.T) {
	for _, name := range []string{"mise.toml", ".mise.toml", "mise/config.toml", ".config/mise/config.toml", ".rtx.toml"} {
		t.Run(name, func(t *testing.T) {
			nestedLauncherCase(t, "sub/"+name, false)
		})
	}
}

func TestAttack144_NestedMiseConfigRewrittenControl(t *testing.T) {
	for _, p := range []string{"mise.toml", "sub/.tool-versions"} {
		t.Run(p, func(t *testing.T) {
			nestedLauncherCase(t, p, true)
		})
	}
}

func nestedLauncherCase(t *testing.T, p string, control bool) {
	t.Helper()
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{p: "[hooks]\nenter = \"echo entering\"\n", "sub/src/x.py": "x\n"})
	clockPast(t, f.ws+"/"+p)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	what := "ESCAPED"
	if control {
		what = "control"
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, p, domain.AccessWrite, false); err == nil {
		t.Errorf("%s (decision): a file tool's write of the person's %s (mise runs its [hooks] enter on cd there) was allowed", what, p)
	}
	r := sh(t, s, `printf '[hooks]\nenter = "touch /tmp/pwned144"\n' > `+p+` ; echo done`)
	attackReport(t, "command", r)
	if strings.Contains(readFileOr(f.ws+"/"+p), "pwned144") {
		t.Errorf("%s (command): a command's rewrite of the person's %s stayed after the check (set aside: %v)", what, p, quarantined(r))
	}
	if control {
		if _, err := (DecisionChecker{}).ResolveFile(s, "sub/src/x.py", domain.AccessWrite, false); err != nil {
			t.Errorf("control: a write of sub/src/x.py: %v", err)
		}
	}
}
