package domain

import (
	"strings"
	"testing"
)

// TestAttack109_DashAnsiQuote: the text is judged as bash reads it, but
// exec_command's cmd runs under /bin/sh, dash (0.5.12 here), which has
// no $'…' quoting. In
//
//	echo $'a\' ; echo password=tools/x | cut -d= -f2 | sh ; echo ' # '
//
// bash reads one ANSI-C string ("a' ; echo … ; echo ") and a comment;
// dash reads "$" and 'a\', then the commands `echo password=tools/x |
// cut -d= -f2 | sh` and `echo ' # '`. The parser (LangBash) sees an echo
// of one word: the command is plain, the password hidden, and dash runs
// the part cut out of it. Controls: the same pipeline outside the quote
// is shown whole; an honest `echo 'a b'; make deploy password=P` keeps P
// hidden (with $'…' anywhere the text is not plain, dash reading it
// otherwise than bash: shown whole by design).
func TestAttack109_DashAnsiQuote(t *testing.T) {
	pipe := "echo password=" + attack42Prog + " | cut -d= -f2 | sh"
	if s := shownExec(t, map[string]any{"cmd": `echo $'a\tb' ; ` + pipe}); !strings.Contains(s, attack42Prog) {
		t.Fatalf("control: the pipeline into sh is not shown whole:\n%s", s)
	}
	if s := shownExec(t, map[string]any{"cmd": attack42Honest(`echo 'a b' ; make deploy password=` + attack42Prog)}); strings.Contains(s, attack42Inert) {
		t.Fatalf("control: an honest quoted echo shows the password:\n%s", s)
	}
	attack42CheckKeyCases(t, []attack42KeyCase{
		{name: "$'a\\' … ' # ' (dash)", cmd: `echo $'a\' ; ` + pipe + ` ; echo ' # '`, runs: []string{"dash"}},
	})
}
