package domain

import (
	"strings"
	"testing"
)

// TestAttack96_RefspecDestinationHidden (ninety-sixth review, medium: where
// a push writes, hidden, in a plain command). A branch whose name holds a
// secret word (fix/token-expiry, password-reset, rotate-api-key: names
// every project has) pushed with a refspec, `git push origin
// fix/token-expiry:main`, is shown as `git push origin
// fix/token-expiry:[redacted]`: the header pattern reads `token-expiry:` as
// a secret header's name and hides the branch the push writes (main,
// release, production), and the person approving sees a push of a branch
// to somewhere hidden. 8e5dca9's memberBare hides the quoted form too
// (`password-reset:"main"`, shown before it). An image tag after a
// secret-word repository (`…/token-service:v1.4.2`: which build a
// deployment runs) is hidden the same way.
//
// The README's known limit is "a bare relative name written after bearer
// or a secret header's `: `"; a refspec is no header, has no blank after
// its ':', and is how a branch is pushed to another name.
//
// Root cause: domain/redact.go secretRes: the header pattern
// (`NAME(\s*:\s*)[^'"\n]+`) and memberBare (`NAME[ \t]*:…`) take a ':'
// with no blank after it, glued to a word whose tail is a secret name.
//
// Fix: a header's value needs ": " (a blank after the colon, as curl -H,
// HTTP and YAML write it) or a name that is a whole word (at a blank, a
// quote or the text's start, not after '/'); the same for memberBare
// outside a flow mapping ('{' or ',' before the name).
func TestAttack96_RefspecDestinationHidden(t *testing.T) {
	shell := textMode{shell: true, keysShown: true}
	// Controls: the same push of a branch with another name is shown; a
	// real header's value and a YAML member are hidden.
	if got := redactText(`git push --force origin fix/expiry:main`, shell); !strings.Contains(got, "fix/expiry:main") {
		t.Fatalf("control: shown as %s", got)
	}
	for _, s := range []string{
		`curl -H "X-Api-Token: Zq8xLmN3pQ7rT2vW" https://api.example/`,
		`printf 'api_token: "Zq8xLmN3pQ7rT2vW"\n' > cfg.yaml`,
	} {
		if got := redactText(s, shell); strings.Contains(got, "Zq8xLmN3pQ7rT2vW") {
			t.Fatalf("control: credential shown: %s", got)
		}
	}
	for _, c := range []struct{ in, want string }{
		{`git push --force origin fix/token-expiry:main`, "fix/token-expiry:main"},
		{`git push origin password-reset:release`, "password-reset:release"},
		{`git push --force origin password-reset:"main"`, `password-reset:"main"`},
		{`kubectl set image deployment/auth auth=ghcr.io/acme/token-service:v1.4.2`, "token-service:v1.4.2"},
	} {
		if got := redactText(c.in, shell); !strings.Contains(got, c.want) {
			t.Errorf("shell: %s\nshown as %s, want %q in view", c.in, got, c.want)
		}
	}
}
