package domain

import (
	"strings"
	"testing"
)

// TestAttack109_RunnerOptionArg: the plain-command rule finds a simple
// command's program past the runners (env, timeout, stdbuf, sudo …) by
// skipping the words that begin with "-" (program). A runner's option
// that takes an argument as the next word (env -u NAME, timeout -s SIG,
// stdbuf -o MODE, sudo -u USER, exec -a NAME, strace -o FILE) makes the
// rule take that argument for the program: "env -u FOO sh" is judged as
// the program FOO, not a shell. So every check keyed on the program is
// passed by: a pipe into a shell of what would be hidden
// (`echo password=P | cut -d= -f2 | env -u FOO sh`), a shell's -c code
// (`env -u FOO sh -c '…'`, never parsed), a file run by its path
// (`env -u FOO ./g`). The command is called plain, the password is
// hidden, and bash and dash run it. Controls: the same without the
// option argument (`| env sh`, `| sh`) is shown whole; `env LC_ALL=C
// make` with a password in it keeps it hidden (a runner's option that is
// not known to take no argument makes the text not plain: `env -u FOO
// make` is shown whole by design).
func TestAttack109_RunnerOptionArg(t *testing.T) {
	pw := "echo password=" + attack42Prog + " | cut -d= -f2"
	for _, c := range []string{pw + " | sh", pw + " | env sh"} {
		if s := shownExec(t, map[string]any{"cmd": c}); !strings.Contains(s, attack42Prog) {
			t.Fatalf("control: a pipe into a shell is not shown whole:\n%s", s)
		}
	}
	if s := shownExec(t, map[string]any{"cmd": attack42Honest("env LC_ALL=C make deploy password=" + attack42Prog)}); strings.Contains(s, attack42Inert) {
		t.Fatalf("control: an honest env command shows its password:\n%s", s)
	}
	w := pw + " > g; chmod +x g; "
	attack42CheckKeyCases(t, []attack42KeyCase{
		{name: "| env -u FOO sh", cmd: pw + " | env -u FOO sh", runs: []string{"bash", "dash"}},
		{name: "| stdbuf -o L sh", cmd: pw + " | stdbuf -o L sh", runs: []string{"bash", "dash"}},
		{name: "| timeout -s KILL 9 sh", cmd: pw + " | timeout -s KILL 9 sh", runs: []string{"bash", "dash"}},
		{name: "env -u FOO sh -c", cmd: "env -u FOO sh -c '" + pw + " | sh'", runs: []string{"bash", "dash"}},
		{name: "env -u FOO ./g", cmd: w + "env -u FOO ./g", runs: []string{"bash", "dash"}},
		{name: "exec -a foo ./g (bash)", cmd: w + "exec -a foo ./g", runs: []string{"bash"}, bash: true},
		{name: "| env -u FOO sh, Claude Code Bash", cmd: pw + " | env -u FOO sh", runs: []string{"bash"}, bash: true},
	})
}
