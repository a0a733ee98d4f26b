package domain

import (
	"strings"
	"testing"
)

// TestAttack110_ShellOptionArg: a shell's -c code is judged as a script
// only where inlineCodeIn finds the -c, and inlineCodeIn stops at the
// first word that does not begin with "-": the argument of a shell option
// that takes one (`sh -o errexit -c CODE`, `bash -O extglob -c CODE`,
// `bash --rcfile F -c CODE`) or an option turned off with "+" (`sh +e -c
// CODE`, dash's and bash's). That word is taken for a script's name
// (scriptArg): the command only "runs a file", CODE is never parsed, the
// password CODE cuts out and pipes into sh is hidden, and the shell runs
// it. The README names `sh -o errexit -c CODE` as judged. The same
// options before a shell reading its input (`| sh -o errexit`, `| sh
// +e`, `| bash -O extglob`) make readsStdinAsCode false: a pipe of the
// hidden value into a shell is called plain. And the argv form
// ["/bin/sh","-o","errexit","-c",CODE] is judged as its joined text, the
// same way.
// Controls: `sh -c CODE`, `sh -e -c CODE` and `| sh -e` are shown whole;
// an honest `sh -o errexit -c 'make deploy password=P'` keeps P hidden.
func TestAttack110_ShellOptionArg(t *testing.T) {
	code := "echo password=" + attack42Prog + " | cut -d= -f2 | sh"
	pw := "echo password=" + attack42Prog + " | cut -d= -f2"
	for _, c := range []any{"sh -c '" + code + "'", "sh -e -c '" + code + "'", pw + " | sh -e", []string{"/bin/sh", "-c", code}} {
		if s := shownExec(t, map[string]any{"cmd": c}); !strings.Contains(s, attack42Prog) {
			t.Fatalf("control: %q is not shown whole:\n%s", c, s)
		}
	}
	if s := shownExec(t, map[string]any{"cmd": attack42Honest("sh -o errexit -c 'make deploy password=" + attack42Prog + "'")}); strings.Contains(s, attack42Inert) {
		t.Fatalf("control: an honest sh -o errexit -c shows its password:\n%s", s)
	}
	attack42CheckKeyCases(t, []attack42KeyCase{
		{name: "sh -o errexit -c", cmd: "sh -o errexit -c '" + code + "'", runs: []string{"bash", "dash"}},
		{name: "sh +e -c", cmd: "sh +e -c '" + code + "'", runs: []string{"bash", "dash"}},
		{name: "bash -O extglob -c", cmd: "bash -O extglob -c '" + code + "'", runs: []string{"bash", "dash"}},
		{name: "bash --rcfile /dev/null -c", cmd: "bash --rcfile /dev/null -c '" + code + "'", runs: []string{"bash", "dash"}},
		{name: "| sh -o errexit", cmd: pw + " | sh -o errexit", runs: []string{"bash", "dash"}},
		{name: "| sh +e", cmd: pw + " | sh +e", runs: []string{"bash", "dash"}},
		{name: "| bash -O extglob", cmd: pw + " | bash -O extglob", runs: []string{"bash", "dash"}},
		{name: "sh -o errexit -c, Claude Code Bash", cmd: "sh -o errexit -c '" + code + "'", runs: []string{"bash"}, bash: true},
	})
	if s := shownExec(t, map[string]any{"cmd": []string{"/bin/sh", "-o", "errexit", "-c", code}}); !strings.Contains(s, attack42Prog) {
		t.Errorf("argv [/bin/sh -o errexit -c CODE]: sh runs %s, and the approval request hides it:\n%s", attack42Prog, s)
	}
}
