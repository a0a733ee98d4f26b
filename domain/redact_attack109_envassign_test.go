package domain

import (
	"strings"
	"testing"
)

// TestAttack109_EnvAssignChooser: the rule makes a command not plain when
// it assigns a variable that chooses what runs (programChooser: PATH,
// BASH_ENV …), but it asks that only of the shell's own assignments
// (CallExpr.Assigns). The same assignment given as env's argument
// (`env PATH=.:/usr/bin:/bin g`, `env BASH_ENV=g bash -c true`) is an
// assignment word program skips, never judged. So a file written with
// what would be hidden and then run through env's PATH or BASH_ENV is
// called plain: the value is hidden, and bash and dash run it (the
// hundred-and-eighth review's `PATH=. g`, one word to the left).
// Controls: `PATH=.:/usr/bin:/bin g` is shown whole; `env LANG=C g` (no
// chooser) keeps the password hidden.
func TestAttack109_EnvAssignChooser(t *testing.T) {
	w := "echo password=" + attack42Prog + " | cut -d= -f2 > g; chmod +x g; "
	if s := shownExec(t, map[string]any{"cmd": w + "PATH=.:/usr/bin:/bin g"}); !strings.Contains(s, attack42Prog) {
		t.Fatalf("control: PATH=. g is not shown whole:\n%s", s)
	}
	if s := shownExec(t, map[string]any{"cmd": attack42Honest(w + "env LANG=C ls -l g")}); strings.Contains(s, attack42Inert) {
		t.Fatalf("control: an honest env assignment shows the password:\n%s", s)
	}
	attack42CheckKeyCases(t, []attack42KeyCase{
		{name: "env PATH=. g", cmd: w + "env PATH=.:/usr/bin:/bin g", runs: []string{"bash", "dash"}},
		{name: "env BASH_ENV=g bash -c true", cmd: w + "env BASH_ENV=g bash -c true", runs: []string{"bash", "dash"}},
		{name: "env PATH=. g, Claude Code Bash", cmd: w + "env PATH=.:/usr/bin:/bin g", runs: []string{"bash"}, bash: true},
	})
}
