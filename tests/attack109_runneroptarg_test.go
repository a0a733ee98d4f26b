package tests

import (
	"strings"
	"testing"
)

// TestAttack109_RunnerOptionArgExec (high): the end-to-end half of
// domain.TestAttack109_RunnerOptionArg. The plain-command rule finds the
// program past a runner by skipping words that begin with "-"
// (domain.program), so in "env -u FOO sh" it takes FOO, an option's
// argument, for the program, and no check keyed on the program (a pipe
// into a reader of code, a shell's -c code, a file run by its path)
// sees the shell. POST /exec, run in the sandbox after approval:
//
//	/bin/sh -c 'echo "Bearer $TERM" | cut -d= -f2 | env -u FOO sh'  (env TERM="password=tools/x")
//	/bin/sh -c 'echo password=tools/x | cut -d= -f2 | env -u FOO sh'
//
// are shown with the value hidden, and sh runs it. Control: the same
// pipelines into a bare sh are shown whole and run.
func TestAttack109_RunnerOptionArgExec(t *testing.T) {
	t.Parallel()
	prog, shownAndRun := hiddenProgramExec(t, "t109")
	env := map[string]string{"TERM": "password=" + prog}
	for i, script := range []string{`echo "Bearer $TERM" | cut -d= -f2 | sh`, `echo password=` + prog + ` | cut -d= -f2 | sh`} {
		shown, ran := shownAndRun("control"+string(rune('a'+i)), map[string]any{"argv": []string{"/bin/sh", "-c", script}, "env": env})
		if !ran || !strings.Contains(shown, prog) {
			t.Fatalf("control: %q: ran %v, shown:\n%s", script, ran, shown)
		}
	}
	for i, script := range []string{
		`echo "Bearer $TERM" | cut -d= -f2 | env -u FOO sh`,
		`echo password=` + prog + ` | cut -d= -f2 | env -u FOO sh`,
		`echo password=` + prog + ` | cut -d= -f2 > g; sh < g`,
	} {
		shown, ran := shownAndRun("hidden"+string(rune('a'+i)), map[string]any{"argv": []string{"/bin/sh", "-c", script}, "env": env})
		if !ran {
			t.Fatalf("premise: %q did not run the script the value names; shown:\n%s", script, shown)
		}
		if !strings.Contains(shown, prog) {
			t.Errorf("the approved command %q ran %s, which its approval request hides:\n%s", script, prog, shown)
		}
	}
}

// TestAttack109_InlineCodeWordExec (high): the end-to-end half of
// domain.TestAttack109_InlineCodeWord. POST /exec with the argv
// ["/bin/sh", "-e", "-c", CODE] (an honest, common form): the rule judges
// "-c" as the code (the word after -e, one of inlineCode), never CODE;
// CODE cuts a password out and pipes it into sh, the request hides it,
// and the sandboxed shell runs it. Control: ["/bin/sh", "-c", CODE] is
// shown whole and runs.
func TestAttack109_InlineCodeWordExec(t *testing.T) {
	t.Parallel()
	prog, shownAndRun := hiddenProgramExec(t, "t109b")
	code := `echo password=` + prog + ` | cut -d= -f2 | sh`
	shown, ran := shownAndRun("control", map[string]any{"argv": []string{"/bin/sh", "-c", code}})
	if !ran || !strings.Contains(shown, prog) {
		t.Fatalf("control: sh -c CODE: ran %v, shown:\n%s", ran, shown)
	}
	for i, argv := range [][]string{{"/bin/sh", "-e", "-c", code}, {"/bin/sh", "-c", "--", code}} {
		shown, ran := shownAndRun("hidden"+string(rune('a'+i)), map[string]any{"argv": argv})
		if !ran {
			t.Fatalf("premise: %q did not run the script; shown:\n%s", argv, shown)
		}
		if !strings.Contains(shown, prog) {
			t.Errorf("the approved argv %q ran %s, which its approval request hides:\n%s", argv, prog, shown)
		}
	}
}
