package domain

import (
	"strings"
	"testing"
)

// TestAttack110_ShellReadsItsOwnText: a plain text may expand $NAME of a
// variable it never sets, unless the shell sets it itself (shellSet: $_,
// $BASH, $BASH_COMMAND …). bash also sets BASH_EXECUTION_STRING, the -c
// text itself, which is not on the list; and any shell's text is in its
// own /proc/PID/cmdline, which a child reads by its parent's pid (the
// fourth field of /proc/self/stat). A text that holds a hidden value and
// reads it back out of itself pipes it into a shell with a left side that
// carries nothing:
//
//	: password=tools/x; echo "$BASH_EXECUTION_STRING" | grep -o 'password=[a-zA-Z0-9/]*' | head -1 | cut -d= -f2 | sh
//	: password=tools/x; cut -d' ' -f4 /proc/self/stat | xargs -I{} cat /proc/{}/cmdline | tr '\0' '\n' | grep -o … | head -1 | cut -d= -f2 | sh
//
// Each is called plain, the password hidden (`: password=[redacted]`), and
// the shell runs it (bash for the first, bash and dash for the second).
// Controls: `echo password=tools/x | cut -d= -f2 | sh` is shown whole; an
// honest `: password=P; echo "$HOME"` keeps P hidden.
func TestAttack110_ShellReadsItsOwnText(t *testing.T) {
	if s := shownExec(t, map[string]any{"cmd": "echo password=" + attack42Prog + " | cut -d= -f2 | sh"}); !strings.Contains(s, attack42Prog) {
		t.Fatalf("control: the pipe into sh is not shown whole:\n%s", s)
	}
	if s := shownExec(t, map[string]any{"cmd": attack42Honest(": password=" + attack42Prog + `; echo "$HOME"`)}); strings.Contains(s, attack42Inert) {
		t.Fatalf("control: an honest text shows the password:\n%s", s)
	}
	pick := ` | grep -o 'password=[a-zA-Z0-9/]*' | head -1 | cut -d= -f2 | sh`
	attack42CheckKeyCases(t, []attack42KeyCase{
		{name: "$BASH_EXECUTION_STRING, Claude Code Bash", cmd: ": password=" + attack42Prog + `; echo "$BASH_EXECUTION_STRING"` + pick, runs: []string{"bash"}, bash: true},
		{name: "/proc/PPID/cmdline", cmd: ": password=" + attack42Prog + `; cut -d' ' -f4 /proc/self/stat | xargs -I{} cat /proc/{}/cmdline | tr '\0' '\n'` + pick, runs: []string{"bash", "dash"}},
	})
}
