package domain

import (
	"strings"
	"testing"
)

// TestAttack106_QuotedExpansionProgramHidden (medium): computesProgram
// (domain/redact_whole.go) finds an expansion where a program goes by the
// byte before its '$': one quote is stepped over, and any other byte but
// a blank or an operator makes it "within a word: a part of its
// argument". An empty quote before it (two double or two single quotes) is
// no byte of the word the shell builds, yet moves the '$' two bytes on:
//
//	T="password=tools/x"; ""${T#*=}
//	set -- Authorization: Bearer tools/x; ""$3
//
// are shown as T="password=[redacted]"; ""${T#*=} and set --
// Authorization: [redacted] [redacted]; ""$3, and bash and dash run
// tools/x. So does a runner the list does not name (setarch, linux64,
// util-linux's, present wherever the sandbox is): setarch x86_64
// ${T#*=}. The hundred-and-fourth review's rule ("an expansion or a
// substitution where a program goes … is shown whole") misses each.
//
// Wanted: each is shown whole, as "${T#*=}" is (control). Control also:
// an expansion that is an argument ("" before it too) keeps a password
// given to mysql hidden.
func TestAttack106_QuotedExpansionProgramHidden(t *testing.T) {
	const secret = "Zq8vLw3nR2tK9pXs"
	for _, cmd := range []string{
		`echo ""${HOME}; mysql --password=` + secret + ` db`,
		`ls -l ''"$d"; mysql --password=` + secret + ` db`,
	} {
		for _, s := range []string{shownExec(t, map[string]any{"cmd": cmd}), attack42ShownBash(t, cmd)} {
			if strings.Contains(s, secret) {
				t.Fatalf("control: a password is shown:\n%s", s)
			}
		}
	}
	const p = attack42Prog
	control := `T="password=` + p + `"; "${T#*=}"`
	for _, s := range []string{shownExec(t, map[string]any{"cmd": control}), attack42ShownBash(t, control)} {
		if !strings.Contains(s, p) {
			t.Fatalf("control: the program an expansion computes is hidden:\n%s", s)
		}
	}
	for _, c := range []struct{ name, cmd string }{
		{"empty double quotes", `T="password=` + p + `"; ""${T#*=}`},
		{"empty single quotes, then a quote", `T="password=` + p + `"; ''"${T#*=}"`},
		{"after assignments", `T="password=` + p + `"; A=1 B=2 ''${T#*=}`},
		{"a positional parameter", `set -- Authorization: Bearer ` + p + `; ""$3`},
		{"setarch", `T="password=` + p + `"; setarch x86_64 ${T#*=}`},
		{"linux64", `T="password=` + p + `"; linux64 "${T#*=}"`},
	} {
		for _, sh := range []string{"bash", "dash"} {
			if ran, ok := attack42RunsProg(t, sh, c.cmd); ok && !ran {
				t.Fatalf("premise %s: %s does not run the program of %q", c.name, sh, c.cmd)
			}
		}
		for _, s := range []string{shownExec(t, map[string]any{"cmd": c.cmd}), attack42ShownBash(t, c.cmd)} {
			if !strings.Contains(s, p) {
				t.Errorf("%s: bash and dash run %s, and the approval request hides it:\n%s", c.name, p, s)
			}
		}
	}
}
