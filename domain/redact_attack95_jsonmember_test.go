package domain

import (
	"strings"
	"testing"
)

// TestAttack95_JSONMemberInCommandShown (ninety-fifth review, low: a
// credential recorded and shown). A secret-named JSON member written in a
// command ("api_key": "…", "access_token":"…", as curl -d sends one to
// an API, the commonest way a key is passed in a body) is shown to the
// person approving and recorded in events, audit and timeline: the header
// pattern wants the name right before the ':' (the member's closing quote
// stands between), the assign pattern an '=', and no pattern reads a
// quoted name. The same key as --api-key, API_KEY= or an X-Api-Key header
// is hidden (control). RedactJSON hides it in a prompt or settings, read as
// JSON by key; a command's text is not.
//
// Fix: in redactGated, a pattern for a quoted secret name, optional
// escaped quotes, a ':' (or '=' in TOML/INI: token = "…") and a quoted
// value, hiding the value as the jwk pattern hides its members.
func TestAttack95_JSONMemberInCommandShown(t *testing.T) {
	shell := textMode{shell: true, keysShown: true}
	const tok = "Zq8xLmN3pQ7rT2vW"
	// Controls: the same key in the forms the README lists is hidden.
	for _, s := range []string{
		`curl -H "X-Api-Key: ` + tok + `" https://api.example/v1`,
		`API_KEY=` + tok + ` ./run`,
		`tool --api-key ` + tok,
	} {
		if got := redactText(s, shell); strings.Contains(got, tok) || !strings.Contains(got, "[redacted") {
			t.Fatalf("control: %s\nshown as %s", s, got)
		}
	}
	for _, s := range []string{
		`curl -d '{"api_key": "` + tok + `"}' https://api.example/v1`,
		`curl -d '{"access_token":"` + tok + `"}' https://api.example/v1`,
		`curl -d "{\"password\": \"` + tok + `\"}" https://api.example/login`,
	} {
		if got := redactText(s, shell); strings.Contains(got, tok) {
			t.Errorf("shell: %s\nshown as %s", s, got)
		}
		if got := RedactText(s); strings.Contains(got, tok) {
			t.Errorf("text: %s\nshown as %s", s, got)
		}
	}
}

// TestSecretMembersBareNames: the same member with its name unquoted, as
// YAML and TOML write it, is hidden; a member naming a file, a path with
// "..", and an assignment expanded where it runs stay in view (controls).
func TestSecretMembersBareNames(t *testing.T) {
	shell := textMode{shell: true, keysShown: true}
	const tok = "Zq8xLmN3pQ7rT2vW"
	for _, s := range []string{
		`printf 'api_key: "` + tok + `"\n' > cfg.yaml`,
		`printf 'token = "` + tok + `"\n' >> cfg.toml`,
		`echo "{\\\"client_secret\\\":\\\"` + tok + `\\\"}"`,
	} {
		if got := redactText(s, shell); strings.Contains(got, tok) || !strings.Contains(got, "[redacted") {
			t.Errorf("shell: %s\nshown as %s", s, got)
		}
	}
	for _, c := range []struct{ in, keep string }{
		{`curl -d '{"token_file": "/run/secrets/x"}' https://api.example/`, "/run/secrets/x"},
		{`curl -d '{"token": "../../etc/x"}' https://api.example/`, "../../etc/x"},
		{`curl -d '{"token": "evil.example:x"}' https://api.example/`, "evil.example:x"},
		{`API_TOKEN="tools/x"; "$API_TOKEN"`, "tools/x"},
	} {
		if got := redactText(c.in, shell); !strings.Contains(got, c.keep) {
			t.Errorf("%s\nshown as %s, lost %q", c.in, got, c.keep)
		}
	}
}

// TestYAMLLinesInHeredocHidden: a config file's secret written by a
// here-document as YAML (token: x, password: 'x') is hidden in a shell
// command too, where the name at a line's start reads as the program a
// shell would run; the value after a name that is the program, glued or
// after an assignment (PATH=. X-Token: rm), stays in view (controls).
func TestYAMLLinesInHeredocHidden(t *testing.T) {
	shell := textMode{shell: true, keysShown: true}
	const tok = "Zq8xLmN3pQ7rT2vW"
	for _, s := range []string{
		"cat > c.yaml <<EOF\napi_token: " + tok + "\nEOF",
		"cat > c.yaml <<EOF\ndb:\n  password: '" + tok + "'\nEOF",
		"token: " + tok,
	} {
		if got := redactText(s, shell); strings.Contains(got, tok) || !strings.Contains(got, "[redacted") {
			t.Errorf("shell: %q\nshown as %q", s, got)
		}
	}
	for _, c := range []struct{ in, keep string }{
		{"PATH=. X-Token: rmdirs -rf ~", "rmdirs"},
		{"X-Token:bin/x arg", "bin/x"},
		{"cat > c.yaml <<EOF\ntoken: ./tools/x\nEOF", "./tools/x"},
	} {
		if got := redactText(c.in, shell); !strings.Contains(got, c.keep) {
			t.Errorf("%q\nshown as %q, lost %q", c.in, got, c.keep)
		}
	}
}
