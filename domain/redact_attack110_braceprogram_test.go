package domain

import (
	"strings"
	"testing"
)

// TestAttack110_BraceExpandedProgram: the plain rule lists a brace
// expansion (syntax.BraceExp) as not plain, but mvdan.cc/sh's parser
// makes no BraceExp node (only syntax.SplitBraces does, which the rule
// never calls): `{sh,}` is a literal word to the walk, and its program
// "{sh,}" is no shell. bash expands it to `sh` before it runs: `echo
// password=tools/x | cut -d= -f2 | {sh,}` pipes the value into a shell,
// `{sh,-c,'CODE'}` runs CODE, `… > g; {sh,g}` runs the file it wrote. A
// Claude Code Bash call, and an exec argv in bash's -c form (Codex's
// ["bash","-lc",SCRIPT]), run them with bash: the command is called
// plain, the password hidden, and bash runs it.
// Controls: the same pipe into a bare sh is shown whole; an honest
// `cp {a,b}.txt; make deploy password=P` keeps P hidden.
func TestAttack110_BraceExpandedProgram(t *testing.T) {
	pw := "echo password=" + attack42Prog + " | cut -d= -f2"
	if s := attack42ShownBash(t, pw+" | sh"); !strings.Contains(s, attack42Prog) {
		t.Fatalf("control: a pipe into sh is not shown whole:\n%s", s)
	}
	if s := attack42ShownBash(t, attack42Honest("cp {a,b}.txt; make deploy password="+attack42Prog)); strings.Contains(s, attack42Inert) {
		t.Fatalf("control: an honest brace expansion shows the password:\n%s", s)
	}
	attack42CheckKeyCases(t, []attack42KeyCase{
		{name: "| {sh,}", cmd: pw + " | {sh,}", runs: []string{"bash"}, bash: true},
		{name: "| {sh,-s}", cmd: pw + " | {sh,-s}", runs: []string{"bash"}, bash: true},
		{name: "{sh,-c,CODE}", cmd: "{sh,-c,'" + pw + " | sh'}", runs: []string{"bash"}, bash: true},
		{name: "> g; {sh,g}", cmd: pw + " > g; {sh,g}", runs: []string{"bash"}, bash: true},
	})
	if s := shownExec(t, map[string]any{"cmd": []string{"bash", "-lc", pw + " | {sh,}"}}); !strings.Contains(s, attack42Prog) {
		t.Errorf("argv [bash -lc '… | {sh,}']: bash runs %s, and the approval request hides it:\n%s", attack42Prog, s)
	}
}
