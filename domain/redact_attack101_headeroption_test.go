package domain

import (
	"strings"
	"testing"
)

// TestAttack101_HeaderAfterEqualsShown (low: a session cookie or an
// authorization value recorded and shown; a regression of d3bd644). A
// glued Cookie or Authorization header (no blank after ':') is hidden only
// when its name starts a word (startsWord: the text's start or after a
// blank, a quote, '{', ',', '(' or ';'), so that fix/session-cookie:main
// stays a refspec. '=' is not in that list, so wget's documented
// --header=HEADER-LINE form, written glued, is shown whole:
//
//	wget --header=Cookie:sessionid=Zq8x… https://app.acme.io/export
//	wget --header=Authorization:Zq8x… https://app.acme.io/export
//
// At 9b1b47f both were hidden (`--header=Cookie:[redacted]`). Controls:
// the same with a blank or quoted is hidden, and the refspec d3bd644
// protects still shows its destination.
//
// Root cause: domain/redact_inview.go startsWord (no '='), used by
// replaceClipped's spaced rule. Fix: count '=' as a word start for the
// header names (an option's value: --header=, -H=), as ',' already is.
func TestAttack101_HeaderAfterEqualsShown(t *testing.T) {
	shell := textMode{shell: true, keysShown: true}
	const tok = "Zq8xLmN3pQ7rT2vW"
	for _, s := range []string{
		`wget --header="Cookie: sessionid=` + tok + `" https://app.acme.io/export`,
		`wget --header='Cookie:sessionid=` + tok + `' https://app.acme.io/export`,
	} {
		if got := redactText(s, shell); strings.Contains(got, tok) {
			t.Fatalf("control: %s\nshown as %s", s, got)
		}
	}
	if s := `git push origin fix/session-cookie:main`; redactText(s, shell) != s {
		t.Fatalf("control: %s shown as %s", s, redactText(s, shell))
	}
	for _, s := range []string{
		`wget --header=Cookie:sessionid=` + tok + ` https://app.acme.io/export`,
		`wget --header=Authorization:` + tok + ` https://app.acme.io/export`,
	} {
		if got := redactText(s, shell); strings.Contains(got, tok) {
			t.Errorf("shell: %s\nshown as %s", s, got)
		}
		if got := RedactText(s); strings.Contains(got, tok) {
			t.Errorf("text: %s\nshown as %s", s, got)
		}
	}
}
