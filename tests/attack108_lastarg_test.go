package tests

import (
	"strings"
	"testing"
)

// TestAttack108_LastArgExec (high): the end-to-end half of
// domain.TestAttack108_LastArgVar. POST /exec of
//
//	/bin/bash -c ': Bearer tools/x; $_'
//
// is shown as `Run /bin/bash -c ': Bearer [redacted]; $_'`; allowed, bash
// runs tools/x (the agent's script, $_ being the last argument of the
// command before) in the sandbox. Control: the script run by name is
// shown, and runs.
func TestAttack108_LastArgExec(t *testing.T) {
	t.Parallel()
	prog, shownAndRun := hiddenProgramExec(t, "t108l")
	shown, ran := shownAndRun("control", map[string]any{"argv": []string{"/bin/bash", "-c", prog}})
	if !ran || !strings.Contains(shown, prog) {
		t.Fatalf("control: the script run by name: ran %v, shown:\n%s", ran, shown)
	}
	shown, ran = shownAndRun("hidden", map[string]any{"argv": []string{"/bin/bash", "-c", ": Bearer " + prog + "; $_"}})
	if !ran {
		t.Fatalf("premise: the command did not run the script; shown:\n%s", shown)
	}
	if !strings.Contains(shown, prog) {
		t.Errorf("the approved command ran %s, which its approval request hides:\n%s", prog, shown)
	}
}
