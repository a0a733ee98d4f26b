package domain

import (
	"strings"
	"testing"
)

// TestAttack106_InterpreterCallByComputedName (low): computesProgram
// (domain/redact_whole.go) finds a language's own way to run a program by
// the words of its call (codeRunners: system(, popen(, exec…(, spawn…(,
// subprocess). An interpreter names what it calls as it computes it:
//
//	python3 -c 'import os; t="password=tools/x"; getattr(os, "sys"+"tem")(t.split("=")[1])'
//
// is shown as t="password=[redacted]" and runs tools/x (from bash and
// dash). Wanted: shown whole, as the same with os.system( is (control).
func TestAttack106_InterpreterCallByComputedName(t *testing.T) {
	const p = attack42Prog
	control := `python3 -c 'import os; t="password=` + p + `"; os.system(t.split("=")[1])'`
	for _, s := range []string{shownExec(t, map[string]any{"cmd": control}), attack42ShownBash(t, control)} {
		if !strings.Contains(s, p) {
			t.Fatalf("control: os.system's program is hidden:\n%s", s)
		}
	}
	for _, cmd := range []string{
		`python3 -c 'import os; t="password=` + p + `"; getattr(os, "sys"+"tem")(t.split("=")[1])'`,
	} {
		for _, sh := range []string{"bash", "dash"} {
			if ran, ok := attack42RunsProg(t, sh, cmd); ok && !ran {
				t.Fatalf("premise: %s does not run the program of %q", sh, cmd)
			}
		}
		for _, s := range []string{shownExec(t, map[string]any{"cmd": cmd}), attack42ShownBash(t, cmd)} {
			if !strings.Contains(s, p) {
				t.Errorf("python3 runs %s, and the approval request hides it:\n%s", p, s)
			}
		}
	}
}
