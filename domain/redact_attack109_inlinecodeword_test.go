package domain

import (
	"strings"
	"testing"
)

// TestAttack109_InlineCodeWord: a shell's -c code is judged as the shell
// reads it (plainCheck.inlineCode), but the word judged is the one after
// the first option that holds 'c' OR is one of inlineCode (-e, -x, -p
// …), and an option ending the options ("--") is taken as code too. In
// `sh -e -c 'CODE'` the word after -e is "-c"; in `sh -x -c 'CODE'` the
// same; in `sh -c -- 'CODE'` the code judged is "--". Each judged text
// is plain, CODE is never parsed, and the shell runs CODE: here a
// password cut out and piped into sh. An argv that is not the first
// "-c" form (`["bash","-e","-c",CODE]`, judgedScript wants argv[1] to
// hold 'c') is judged as its joined text, the same way. The command is
// called plain, the value hidden, and bash and dash run it. Controls:
// `sh -c 'CODE'`, `sh -ec 'CODE'` and the argv `["bash","-c",CODE]` are
// shown whole; `sh -e -c 'make deploy password=P'` keeps P hidden.
func TestAttack109_InlineCodeWord(t *testing.T) {
	code := "echo password=" + attack42Prog + " | cut -d= -f2 | sh"
	for _, c := range []any{"sh -c '" + code + "'", "sh -ec '" + code + "'", []string{"bash", "-c", code}} {
		if s := shownExec(t, map[string]any{"cmd": c}); !strings.Contains(s, attack42Prog) {
			t.Fatalf("control: %q is not shown whole:\n%s", c, s)
		}
	}
	if s := shownExec(t, map[string]any{"cmd": attack42Honest("sh -e -c 'make deploy password=" + attack42Prog + "'")}); strings.Contains(s, attack42Inert) {
		t.Fatalf("control: an honest sh -e -c shows its password:\n%s", s)
	}
	attack42CheckKeyCases(t, []attack42KeyCase{
		{name: "sh -e -c", cmd: "sh -e -c '" + code + "'", runs: []string{"bash", "dash"}},
		{name: "sh -x -c", cmd: "sh -x -c '" + code + "'", runs: []string{"bash", "dash"}},
		{name: "sh -c --", cmd: "sh -c -- '" + code + "'", runs: []string{"bash", "dash"}},
		{name: "bash -e -c, Claude Code Bash", cmd: "bash -e -c '" + code + "'", runs: []string{"bash"}, bash: true},
	})
	if s := shownExec(t, map[string]any{"cmd": []string{"bash", "-e", "-c", code}}); !strings.Contains(s, attack42Prog) {
		t.Errorf("argv [bash -e -c CODE]: bash runs %s, and the approval request hides it:\n%s", attack42Prog, s)
	}
}
