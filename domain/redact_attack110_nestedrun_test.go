package domain

import (
	"strings"
	"testing"
)

// TestAttack110_NestedRunOfWrittenFile: a text that writes a file and runs
// one is not plain (writes && runs), and a shell's -c code is judged as a
// script of its own (parsePlain of each argument), but the nested
// judgement returns only plain or not: a file it runs (`sh g`, `. ./g`)
// never reaches the outer text's runs, and the nested text writes nothing,
// so it is plain. An interpreter's inline code is judged only by whether
// it hides something (carries), never as running a file. So
//
//	echo password=tools/x | cut -d= -f2 > g; sh -c 'sh g'
//	echo password=tools/x | cut -d= -f2 > g; sh -c '. ./g'
//	echo password=tools/x | cut -d= -f2 > g; python3 -c "import os; os.system(open('g').read())"
//	echo password=tools/x | cut -d= -f2 > g; perl -e 'system("sh g")'
//
// write the value cut out of "password=" to g and run it; each is called
// plain, the value hidden, and bash and dash run it. The other way round,
// a nested text's write is not seen by the outer text that runs the file:
// `sh -c 'echo password=tools/x | cut -d= -f2 > g'; sh g`.
// Controls: `…; sh g` is shown whole; `…> g; sh -c 'wc -c g'` (the file
// written and only read) keeps the password hidden.
func TestAttack110_NestedRunOfWrittenFile(t *testing.T) {
	w := "echo password=" + attack42Prog + " | cut -d= -f2 > g; "
	if s := shownExec(t, map[string]any{"cmd": w + "sh g"}); !strings.Contains(s, attack42Prog) {
		t.Fatalf("control: the written file run by sh is not shown whole:\n%s", s)
	}
	if s := shownExec(t, map[string]any{"cmd": attack42Honest(w + "sh -c 'wc -c g'")}); strings.Contains(s, attack42Inert) {
		t.Fatalf("control: a written file only read shows the password:\n%s", s)
	}
	attack42CheckKeyCases(t, []attack42KeyCase{
		{name: "sh -c 'sh g'", cmd: w + "sh -c 'sh g'", runs: []string{"bash", "dash"}},
		{name: "sh -c '. ./g'", cmd: w + "sh -c '. ./g'", runs: []string{"bash", "dash"}},
		{name: "python3 -c os.system(open(g))", cmd: w + `python3 -c "import os; os.system(open('g').read())"`, runs: []string{"bash", "dash"}},
		{name: "perl -e system(sh g)", cmd: w + `perl -e 'system("sh g")'`, runs: []string{"bash", "dash"}},
		{name: "sh -c '…> g'; sh g (the nested text writes)", cmd: "sh -c 'echo password=" + attack42Prog + " | cut -d= -f2 > g'; sh g", runs: []string{"bash", "dash"}},
		{name: "bash -c 'bash g', Claude Code Bash", cmd: w + "bash -c 'bash g'", runs: []string{"bash"}, bash: true},
	})
}
