package domain

import (
	"strings"
	"testing"
)

// TestAttack99_CookieRefspecHidden (ninety-ninth review, on 9b1b47f,
// medium: where a push writes, or which image tag runs, hidden). The fix
// of TestAttack96_RefspecDestinationHidden (the `spaced` clip) shows the
// value after a secret name glued to ':' ("a refspec's or a tag's ':'"),
// but keeps hiding it when the name is an Authorization or Cookie header's
// (headerName). The header pattern's name starts at any \b, after a '/'
// or a '-' too, so a branch or an image whose name ENDS in cookie or
// authorization is read as that header:
//
//	git push --force origin fix/session-cookie:main
//
// is shown as `git push --force origin fix/session-cookie:[redacted]`:
// the person approving sees a force push of a branch to somewhere hidden
// (main, release, production). So is an image's tag
// (`ghcr.io/acme/authorization:v1.4.2`: an authorization service, which
// build a deployment runs). The same with a branch named fix/session-token
// is shown (control: the 96th fix).
//
// Root cause: domain/redact.go replaceClipped, the spaced check's
// headerName exception, with secretRes' header pattern taking a name that
// starts after '/' or '-' (\b).
//
// Fix: take the glued Authorization/Cookie exception only where the name
// starts a word (the text's start, a blank, a quote, '{' or ','), not
// after '/', '-', '.' or another name byte.
func TestAttack99_CookieRefspecHidden(t *testing.T) {
	shell := textMode{shell: true, keysShown: true}
	for _, c := range []struct{ in, want string }{
		{`git push --force origin fix/session-token:main`, "fix/session-token:main"},
		{`kubectl set image deployment/auth app=ghcr.io/acme/token-service:v1.4.2`, "token-service:v1.4.2"},
	} {
		if got := redactText(c.in, shell); !strings.Contains(got, c.want) {
			t.Fatalf("control: %s\nshown as %s, want %q in view", c.in, got, c.want)
		}
	}
	// Controls: a real glued Authorization or Cookie header is hidden.
	for _, s := range []string{
		`curl -H 'Authorization:Bearer Zq8xLmN3pQ7rT2vW' https://api.example/`,
		`curl -H "Cookie:session=Zq8xLmN3pQ7rT2vW" https://api.example/`,
	} {
		if got := redactText(s, shell); strings.Contains(got, "Zq8xLmN3pQ7rT2vW") {
			t.Fatalf("control: credential shown: %s", got)
		}
	}
	for _, c := range []struct{ in, want string }{
		{`git push --force origin fix/session-cookie:main`, "fix/session-cookie:main"},
		{`git push --force origin feature/oauth-authorization:release`, "feature/oauth-authorization:release"},
		{`kubectl set image deployment/authz app=ghcr.io/acme/authorization:v1.4.2`, "authorization:v1.4.2"},
	} {
		if got := redactText(c.in, shell); !strings.Contains(got, c.want) {
			t.Errorf("shell: %s\nshown as %s, want %q in view", c.in, got, c.want)
		}
	}
}
