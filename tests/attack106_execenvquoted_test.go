package tests

import (
	"strings"
	"testing"
)

// TestAttack106_ExecEnvQuotedProgramHidden (medium): the hundred-and-
// fourth review made POST /exec show an environment whole when its
// command computes its program (computesProgram; the control below,
// /bin/sh -c '${TERM#*=}', is shown and runs). computesProgram misses the
// same command with the expansion quoted, as a script is usually written
// (argv ["/bin/sh", "-c", "\"${TERM#*=}\""]: the command it reads is the
// argv joined, /bin/sh -c '"${TERM#*=}"', and one quote is stepped over
// before the '$', the second makes it "within a word"), with an empty
// quote before the expansion ('""${TERM#*=}'), and a value piped into sh past a
// redirection whose '&' it reads as a list's ('echo "$TERM" 2>&1 | cut
// -d= -f2 | sh'). The agent, holding the runtime's credential, writes a
// script in its workspace (auto_accept_edits) and asks to run it so; the
// approver is shown
//
//	Run /bin/sh -c '""${TERM#*=}'
//	Environment: TERM="password=[redacted]"
//
// and, allowed, the hidden script runs in the sandbox.
// Wanted: shown whole, as the control is.
func TestAttack106_ExecEnvQuotedProgramHidden(t *testing.T) {
	t.Parallel()
	prog, shownAndRun := hiddenProgramExec(t, "t106")
	env := map[string]string{"TERM": "password=" + prog}
	shown, ran := shownAndRun("control", map[string]any{"argv": []string{"/bin/sh", "-c", "${TERM#*=}"}, "env": env})
	if !ran || !strings.Contains(shown, prog) {
		t.Fatalf("control: the program computed from TERM: ran %v, shown:\n%s", ran, shown)
	}
	for i, script := range []string{`"${TERM#*=}"`, `""${TERM#*=}`, `echo "$TERM" 2>&1 | cut -d= -f2 | sh`} {
		shown, ran = shownAndRun("hidden"+string(rune('a'+i)), map[string]any{"argv": []string{"/bin/sh", "-c", script}, "env": env})
		if !ran {
			t.Fatalf("premise: %q did not run the script the value names; shown:\n%s", script, shown)
		}
		if !strings.Contains(shown, prog) {
			t.Errorf("the approved command %q ran %s, which its approval request hides:\n%s", script, prog, shown)
		}
	}
}
