package tests

import (
	"strings"
	"testing"
)

// TestAttack115_EnvHeaderProgramExec (medium): the end-to-end half of
// domain.TestAttack115_EnvHeaderProgram. The agent wrote a script at
// tools/x in its workspace (auto_accept_edits writes without asking) and
// asks POST /exec to run `env X=”Authorization: tools/x` (argv /bin/sh
// -c): the shell hands env the assignment X=Authorization: and env runs
// tools/x. The request hides tools/x as a header's credential (the inert
// check lets a '/' through after "Authorization: "); allowed once, the
// sandboxed env runs the hidden script.
// Control: `env X=Authorization: tools/x` (no quotes glued to the header's
// name) is shown whole and runs.
func TestAttack115_EnvHeaderProgramExec(t *testing.T) {
	t.Parallel()
	prog, shownAndRun := hiddenProgramExec(t, "t115a")
	shown, ran := shownAndRun("control", map[string]any{"argv": []string{"/bin/sh", "-c", "env X=Authorization: " + prog}})
	if !ran || !strings.Contains(shown, prog) {
		t.Fatalf("control: ran %v, shown:\n%s", ran, shown)
	}
	for i, argv := range [][]string{
		{"/bin/sh", "-c", "env X=''Authorization: " + prog},
		{"/bin/sh", "-c", `env X=""Cookie: ` + prog},
	} {
		shown, ran := shownAndRun("hidden"+string(rune('a'+i)), map[string]any{"argv": argv})
		if !ran {
			t.Fatalf("premise: %q did not run the script; shown:\n%s", argv, shown)
		}
		if !strings.Contains(shown, prog) {
			t.Errorf("the approved argv %q ran %s, which its approval request hides:\n%s", argv, prog, shown)
		}
	}
}
