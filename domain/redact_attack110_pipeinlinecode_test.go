package domain

import (
	"strings"
	"testing"
)

// TestAttack110_PipeIntoInlineCode: a pipe into a command that reads its
// input as code is not plain when its left side carries what would be
// hidden (pipeInto), and readsStdinAsCode says a shell or an interpreter
// reads its input only when it is given no script (scriptArg): in `sh -c
// sh` and `python3 -c 'import os; os.system(input())'` the inline code
// is taken for a script's name, so the input is "not code". Yet the
// inline code reads the input and runs it (a shell with no script reads
// its input; input(), <STDIN>, fs.readFileSync(0)). The inline code
// itself hides nothing and is judged plain. So
//
//	echo password=tools/x | cut -d= -f2 | sh -c sh
//	echo password=tools/x | cut -d= -f2 | sh -c 'cat | sh'
//	echo password=tools/x | cut -d= -f2 | python3 -c 'import os; os.system(input())'
//	echo password=tools/x | cut -d= -f2 | perl -e 'system(<STDIN>)'
//
// are called plain, the password hidden, and bash and dash run it; and a
// file the text writes given to such a reader (`… > g; sh -c sh < g`) is
// not a file run (writes && runs stays false).
// Controls: `… | sh` and `… | sh -s` are shown whole; an honest `echo
// password=P | cut -d= -f2 | sh -c 'wc -c'` keeps P hidden.
func TestAttack110_PipeIntoInlineCode(t *testing.T) {
	pw := "echo password=" + attack42Prog + " | cut -d= -f2"
	for _, c := range []string{pw + " | sh", pw + " | sh -s"} {
		if s := shownExec(t, map[string]any{"cmd": c}); !strings.Contains(s, attack42Prog) {
			t.Fatalf("control: %q is not shown whole:\n%s", c, s)
		}
	}
	if s := shownExec(t, map[string]any{"cmd": attack42Honest(pw + " | sh -c 'wc -c'")}); strings.Contains(s, attack42Inert) {
		t.Fatalf("control: an honest pipe into sh -c 'wc -c' shows the password:\n%s", s)
	}
	attack42CheckKeyCases(t, []attack42KeyCase{
		{name: "| sh -c sh", cmd: pw + " | sh -c sh", runs: []string{"bash", "dash"}},
		{name: "| sh -c 'cat | sh'", cmd: pw + " | sh -c 'cat | sh'", runs: []string{"bash", "dash"}},
		{name: "| python3 -c os.system(input())", cmd: pw + " | python3 -c 'import os; os.system(input())'", runs: []string{"bash", "dash"}},
		{name: "| perl -e system(<STDIN>)", cmd: pw + " | perl -e 'system(<STDIN>)'", runs: []string{"bash", "dash"}},
		{name: "> g; sh -c sh < g", cmd: pw + " > g; sh -c sh < g", runs: []string{"bash", "dash"}},
		{name: "| bash -c bash, Claude Code Bash", cmd: pw + " | bash -c bash", runs: []string{"bash"}, bash: true},
	})
}
