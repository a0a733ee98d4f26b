package domain

import (
	"os/exec"
	"strings"
	"testing"
)

// TestAttack110_WrappedShellCode: a shell's -c code is judged as a script
// only when the shell is the simple command's program past the runners
// (plainCheck.call). xargs (on the code readers' list) and find -exec
// hand their words to a program too, and a shell there is never seen:
// `true | xargs sh -c 'CODE'` only "runs" (xargs given a script word),
// `find . -maxdepth 0 -exec sh -c 'CODE' \;` is find's arguments. CODE
// cuts a password out and pipes it into sh; the command is called plain,
// the value hidden, and bash and dash run it.
// Controls: the same CODE as `sh -c 'CODE'` and `nohup sh -c 'CODE'` (a
// runner) is shown whole; `true | xargs make deploy password=P` keeps P
// hidden.
func TestAttack110_WrappedShellCode(t *testing.T) {
	code := "echo password=" + attack42Prog + " | cut -d= -f2 | sh"
	for _, c := range []string{"sh -c '" + code + "'", "nohup sh -c '" + code + "'"} {
		if s := shownExec(t, map[string]any{"cmd": c}); !strings.Contains(s, attack42Prog) {
			t.Fatalf("control: %q is not shown whole:\n%s", c, s)
		}
	}
	if s := shownExec(t, map[string]any{"cmd": attack42Honest("true | xargs make deploy password=" + attack42Prog)}); strings.Contains(s, attack42Inert) {
		t.Fatalf("control: an honest xargs command shows its password:\n%s", s)
	}
	attack42CheckKeyCases(t, []attack42KeyCase{
		{name: "xargs sh -c", cmd: "true | xargs sh -c '" + code + "'", runs: []string{"bash", "dash"}},
		{name: "xargs -0 sh -c", cmd: "printf x | xargs -0 sh -c '" + code + "'", runs: []string{"bash", "dash"}},
		{name: "find -exec sh -c", cmd: "find . -maxdepth 0 -exec sh -c '" + code + "' \\;", runs: []string{"bash", "dash"}},
		{name: "find -exec sh -c, Claude Code Bash", cmd: "find . -maxdepth 0 -exec sh -c '" + code + "' \\;", runs: []string{"bash"}, bash: true},
	})
}

// TestAttack110_CommandStringOptions: a program that takes a command
// string is not plain only for the short option holding 'c'
// (commandStringTakers: git -c) or when it is a code word (awk, sed,
// ssh …). Programs that run a command string given by another option are
// judged as any program's arguments: git's --upload-pack (git is on the
// list for -c, and runs the string with sh), make's --eval (a rule's
// recipe, run by sh), tar's --checkpoint-action=exec= (tar is on the
// file writers' list, and runs the string with sh), sqlite3's .shell,
// an alias git config writes and git then runs (git is on the list for
// -c alias.x=!…, the same code by another way), vim's +!CODE (vim is a
// code reader and a command string taker for -c; + is the same), a
// wrapper that runs a shell (ssh-agent sh -c). In
// each, CODE cuts a password out and pipes it into sh; the command is
// called plain, the value hidden, and the program runs it.
// Controls: `git -c alias.x=… x` with the same CODE is shown whole; `git
// push https://x.example/r password=P`-style honest arguments,
// `make deploy password=P`, keep P hidden.
func TestAttack110_CommandStringOptions(t *testing.T) {
	code := "echo password=" + attack42Prog + " | cut -d= -f2 | sh"
	if s := shownExec(t, map[string]any{"cmd": "git -c 'alias.x=!" + code + "' x"}); !strings.Contains(s, attack42Prog) {
		t.Fatalf("control: git -c is not shown whole:\n%s", s)
	}
	if s := shownExec(t, map[string]any{"cmd": attack42Honest("make deploy password=" + attack42Prog)}); strings.Contains(s, attack42Inert) {
		t.Fatalf("control: an honest make command shows its password:\n%s", s)
	}
	var cases []attack42KeyCase
	for _, c := range []struct{ prog, name, cmd string }{
		{"git", "git ls-remote --upload-pack", "git ls-remote --upload-pack='" + code + "; :' ."},
		{"make", "make --eval", "make --eval='x:;@" + code + "' x"},
		{"tar", "tar --checkpoint-action=exec", "tar -cf /dev/null /dev/null --checkpoint=1 --checkpoint-action=exec='" + code + "'"},
		{"sqlite3", "sqlite3 .shell", "sqlite3 :memory: '.shell " + code + "'"},
		{"git", "git config alias, then the alias", "git init -q && git config alias.x '!" + code + "' && git x"},
		{"vim", "vim +!CODE", "vim -es '+!" + code + "' +q"},
		{"ssh-agent", "ssh-agent sh -c", "ssh-agent sh -c '" + code + "'"},
	} {
		if _, err := exec.LookPath(c.prog); err != nil {
			continue
		}
		cases = append(cases, attack42KeyCase{name: c.name, cmd: c.cmd, runs: []string{"bash", "dash"}})
	}
	attack42CheckKeyCases(t, cases)
}
