package domain

import (
	"strings"
	"testing"
)

// TestAttack109_StdinFileRun: a command that writes a file and runs one
// is shown whole (writes && runs), but "runs a file" is only a program
// by a path or a code reader given a script word (scriptArg). A code
// reader given the written file as its input is neither: `sh < g`,
// `bash -s < g`, and `cat g | sh` (pipeInto asks only whether the left
// side's own text carries a secret; "cat g" carries none). So
// `echo password=P | cut -d= -f2 > g; sh < g` is called plain, the value
// is hidden, and the shell runs it. Controls: `sh g` (a script word) and
// `. ./g` are shown whole; the file written and only read with `wc -c`
// keeps the password hidden.
func TestAttack109_StdinFileRun(t *testing.T) {
	w := "echo password=" + attack42Prog + " | cut -d= -f2 > g; "
	for _, c := range []string{w + "sh g", w + ". ./g"} {
		if s := shownExec(t, map[string]any{"cmd": c}); !strings.Contains(s, attack42Prog) {
			t.Fatalf("control: %q is not shown whole:\n%s", c, s)
		}
	}
	if s := shownExec(t, map[string]any{"cmd": attack42Honest(w + "wc -c < g")}); strings.Contains(s, attack42Inert) {
		t.Fatalf("control: a file written and only read shows the password:\n%s", s)
	}
	attack42CheckKeyCases(t, []attack42KeyCase{
		{name: "sh < g", cmd: w + "sh < g", runs: []string{"bash", "dash"}},
		{name: "bash -s < g", cmd: w + "bash -s < g", runs: []string{"bash", "dash"}},
		{name: "cat g | sh", cmd: w + "cat g | sh", runs: []string{"bash", "dash"}},
		{name: "exec 3<g; sh <&3", cmd: w + "exec 3<g; sh <&3", runs: []string{"bash", "dash"}},
		{name: "sh < g, Claude Code Bash", cmd: w + "sh < g", runs: []string{"bash"}, bash: true},
	})
}
