package domain

import (
	"strings"
	"testing"
)

// TestAttack109_ArithQuoted (bash): bash evaluates a string as arithmetic
// in many places, and arithmetic expands a subscript again, so
// "a[$(CMD)]" runs CMD even when the text quotes it: the operands of
// [[ -eq/-lt … ]], a declare -i variable's value, an array subscript in
// an assignment (a['…']=1), the names given to read, printf -v, [[ -v ]]
// and test -v. The parser sees one single-quoted word (no substitution,
// no arithmetic node: plainCheck.visit flags only the parsed ones), so
// the command is plain, the password in CMD is hidden, and bash runs the
// part cut out of it. Bash runs a Claude Code Bash call and Codex's argv
// ["bash", "-lc", SCRIPT]. Controls: the same with the substitution
// unquoted ([[ a[$(CMD)] -eq 1 ]]) is shown whole; an honest
// `[[ 3 -eq 3 ]] && make deploy password=P` keeps P hidden.
func TestAttack109_ArithQuoted(t *testing.T) {
	sub := "a[$(echo password=" + attack42Prog + " | cut -d= -f2 | sh)]"
	if s := attack42ShownBash(t, "[[ "+sub+" -eq 1 ]]"); !strings.Contains(s, attack42Prog) {
		t.Fatalf("control: an unquoted substitution is not shown whole:\n%s", s)
	}
	if s := attack42ShownBash(t, attack42Honest("[[ 3 -eq 3 ]] && make deploy password="+attack42Prog)); strings.Contains(s, attack42Inert) {
		t.Fatalf("control: an honest [[ ]] shows the password:\n%s", s)
	}
	for _, c := range []string{
		"[[ '" + sub + "' -eq 1 ]]",
		"declare -i n; n='" + sub + "'",
		"a['$(echo password=" + attack42Prog + " | cut -d= -f2 | sh)']=1",
		"read '" + sub + "' < /dev/null",
		"printf -v '" + sub + "' x",
		"test -v '" + sub + "'",
	} {
		if ran, ok := attack42RunsProg(t, "bash", c); ok && !ran {
			t.Fatalf("premise: bash does not run the program of %q", c)
		}
		if s := attack42ShownBash(t, c); !strings.Contains(s, attack42Prog) {
			t.Errorf("Claude Code Bash %q: bash runs %s, and the approval request hides it:\n%s", c, attack42Prog, s)
		}
		if s := shownExec(t, map[string]any{"cmd": []string{"bash", "-lc", c}}); !strings.Contains(s, attack42Prog) {
			t.Errorf("exec_command [bash -lc %q]: bash runs %s, and the approval request hides it:\n%s", c, attack42Prog, s)
		}
	}
}
