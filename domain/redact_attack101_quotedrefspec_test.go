package domain

import (
	"strings"
	"testing"
)

// TestAttack101_QuotedRefspecHidesBranch (medium: the git ref a push
// writes hidden from the approver). The ninety-sixth review made a secret
// name glued to ':' a refspec's (git push origin fix/token-expiry:main
// shows main) for the header pattern. The member pattern (8e5dca9/
// 9b1b47f/d3bd644) takes any quoted secret name, a ':' with no blank
// required (compact JSON: {"token":"x"}) and a quoted value: a refspec
// whose sides are quoted, as a shell user quotes words, is such a member,
// and its destination is hidden:
//
//	git push -f origin "token-expiry":"main"    ->  … "token-expiry":"[redacted]"
//	git push -f origin 'token-refresh':'release' ->  … 'token-refresh':'[redacted]'
//
// The shell removes the quotes; git force-pushes the branch to main. The
// person approving sees a push of token-expiry to a hidden destination
// (a credential's place). Controls: the same refspec unquoted, or with a
// source branch whose name is no secret's, shows main; and the compact
// JSON body curl sends keeps its token hidden (what a fix must keep).
//
// Root cause: domain/redact.go secretPatterns.member (`(?:[ \t]*:|…)` after
// a quoted name) with replaceClipped's member clip, which has no `spaced`
// rule: a glued ':' is a JSON member's even where the quoted name starts
// a shell word and the shell joins name, ':' and value into one word.
// Fix: a glued name":"value is a member only inside a string (a '{', ','
// or escaped quote before the name's quote, or the name's quote within a
// quoted string: quoteOpen), not when the name's quote starts a shell
// word; or judge the whole shell word (judgedWord from the name's quote)
// and keep it in view when it is a refspec (no blank, one ':').
func TestAttack101_QuotedRefspecHidesBranch(t *testing.T) {
	shell := textMode{shell: true, keysShown: true}
	for _, s := range []string{
		`git push -f origin fix/token-expiry:main`,
		`git push -f origin token-expiry:main`,
		`git push -f origin "fix-login":"main"`,
	} {
		if got := redactText(s, shell); got != s {
			t.Fatalf("control: %s\nshown as %s", s, got)
		}
	}
	const tok = "Zq8xLmN3pQ7rT2vW"
	body := `curl -d '{"token":"` + tok + `"}' https://api.acme.io/v1/login`
	if got := redactText(body, shell); strings.Contains(got, tok) {
		t.Fatalf("control: %s\nshown as %s", body, got)
	}
	for _, c := range []struct{ cmd, dest string }{
		{`git push -f origin "token-expiry":"main"`, "main"},
		{`git push -f origin 'token-refresh':'release'`, "release"},
	} {
		if got := redactText(c.cmd, shell); !strings.Contains(got, `"`+c.dest+`"`) && !strings.Contains(got, `'`+c.dest+`'`) {
			t.Errorf("shell: %s\nshown as %s (the destination %s hidden)", c.cmd, got, c.dest)
		}
		if got := RedactText(c.cmd); !strings.Contains(got, c.dest) {
			t.Errorf("text: %s\nshown as %s", c.cmd, got)
		}
	}
}
