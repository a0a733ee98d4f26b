package domain

import (
	"strings"
	"testing"
)

// TestAttack110_DashDoubleBracket: the text is judged as bash reads it,
// and exec_command's cmd runs under /bin/sh, dash, which has no [[ … ]]:
// to dash `[[` is a program (not found), and `||`, `&&`, `<`, `>` within
// are its operators. In
//
//	echo password=tools/x | cut -d= -f2 > ']]'; [[ -n x || sh ]]
//
// bash (and the parser) read a test of two strings; dash runs `[[ -n x`
// (127) and then `sh ]]`, which runs the file `]]` the text wrote. The
// walk never looks into a test clause for a program: the command "writes"
// but "runs" nothing, is called plain, the password hidden, and dash runs
// it. Likewise `[[ -n x || sh -ef password=tools/x ]]` runs the agent's
// script in an assignment's shape, hidden.
// Controls: the same with `sh ']]'` (the file run as a command) is shown
// whole; an honest `[[ -n x ]] && make deploy password=P` keeps P hidden.
func TestAttack110_DashDoubleBracket(t *testing.T) {
	w := "echo password=" + attack42Prog + " | cut -d= -f2 > ']]'; "
	if s := shownExec(t, map[string]any{"cmd": w + "sh ']]'"}); !strings.Contains(s, attack42Prog) {
		t.Fatalf("control: the written file run by sh is not shown whole:\n%s", s)
	}
	if s := shownExec(t, map[string]any{"cmd": attack42Honest("[[ -n x ]] && make deploy password=" + attack42Prog)}); strings.Contains(s, attack42Inert) {
		t.Fatalf("control: an honest [[ ]] shows the password:\n%s", s)
	}
	attack42CheckKeyCases(t, []attack42KeyCase{
		{name: "> ']]'; [[ -n x || sh ]] (dash)", cmd: w + "[[ -n x || sh ]]", runs: []string{"dash"}},
	})
	cmd := "[[ -n x || sh -ef " + attack110File + " ]]"
	if ran, ok := attack110RunsFile(t, "dash", cmd); ok && !ran {
		t.Fatalf("premise: dash does not run %s in %q", attack110File, cmd)
	}
	if s := shownExec(t, map[string]any{"cmd": cmd}); !strings.Contains(s, "r4nD0mLooK1nGNam3ForAScr1pt") {
		t.Errorf("%s\ndash runs ./%s, and the approval request hides it:\n%s", cmd, attack110File, s)
	}
}

// TestAttack110_DashAmpRedirect: bash reads `&>FILE` as a redirection of
// both outputs, dash (/bin/sh, exec_command's shell) as `&` (run in the
// background) and then a command starting with `>FILE`. In
//
//	echo password=tools/x | cut -d= -f2 > g; echo done &>/dev/null sh g
//
// bash (and the parser) read `echo done sh g` with its output discarded:
// the text writes g and runs nothing, is called plain, and the password is
// hidden; dash runs `echo done &` and then `sh g`, which runs the hidden
// value.
// Controls: `…; sh g` is shown whole; an honest `make deploy password=P
// &>/dev/null` keeps P hidden.
func TestAttack110_DashAmpRedirect(t *testing.T) {
	w := "echo password=" + attack42Prog + " | cut -d= -f2 > g; "
	if s := shownExec(t, map[string]any{"cmd": w + "sh g"}); !strings.Contains(s, attack42Prog) {
		t.Fatalf("control: the written file run by sh is not shown whole:\n%s", s)
	}
	if s := shownExec(t, map[string]any{"cmd": attack42Honest("make deploy password=" + attack42Prog + " &>/dev/null")}); strings.Contains(s, attack42Inert) {
		t.Fatalf("control: an honest &> shows the password:\n%s", s)
	}
	attack42CheckKeyCases(t, []attack42KeyCase{
		{name: "echo done &>/dev/null sh g (dash)", cmd: w + "echo done &>/dev/null sh g", runs: []string{"dash"}},
	})
}
