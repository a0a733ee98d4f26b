package domain

import (
	"strings"
	"testing"
)

// TestAttack96_MemberFormsShown (ninety-sixth review, on 8e5dca9, low: a
// credential recorded and shown). The fix of
// TestAttack95_JSONMemberInCommandShown hides "a secret-named member
// written in a command as JSON, YAML or TOML writes it" (README), but its
// patterns (member, memberBare) take a value in double quotes only, and
// memberBare a bare name only after a blank or one of {,'(; . Shown to the
// person approving and recorded in events, audit and timeline:
//   - YAML's single-quoted scalar (`password: 'x'`), TOML's literal string
//     (`token = 'x'`) and the dict a Python one-liner sends (requests'
//     `headers={'X-Api-Key': 'x'}`, `json={'password': 'x'}`: Python's
//     usual quote); Ruby's and PHP's `"password" => "x"`;
//   - a TOML or YAML line printf writes after its `\n` escape
//     (`printf '[auth]\ntoken = "x"\n'`): the name follows the escape's n.
//
// The header pattern wants the name right before ':' and a value that
// starts with no quote; the assign pattern an '=' right after the name.
//
// Root cause: domain/redact.go secretRes: member and memberBare quote their
// value with \\*" only and take [:=] only; memberBare's name must follow
// one of [\s{,'(;].
//
// Fix: take ' as the value's quote too (the same on both sides), "=>" as
// a separator, and a `\n`/`\t` escape before a bare name as a line start.
func TestAttack96_MemberFormsShown(t *testing.T) {
	shell := textMode{shell: true, keysShown: true}
	const tok = "Zq8xLmN3pQ7rT2vW"
	// Controls: the same members in double quotes, or first in printf's
	// format, are hidden (8e5dca9).
	for _, s := range []string{
		`python3 -c 'import requests; requests.get("https://api.example/v1/me", headers={"X-Api-Key": "` + tok + `"})'`,
		`printf 'database:\n  password: "` + tok + `"\n' > config.yaml`,
		`printf 'token = "` + tok + `"\n' > cfg.toml`,
	} {
		if got := redactText(s, shell); strings.Contains(got, tok) {
			t.Fatalf("control: %s\nshown as %s", s, got)
		}
	}
	for _, s := range []string{
		`python3 -c "import requests; requests.get('https://api.example/v1/me', headers={'X-Api-Key': '` + tok + `'})"`,
		`python3 -c "import requests; requests.post('https://api.example/v1/login', json={'username': 'bot', 'password': '` + tok + `'})"`,
		`printf "database:\n  password: '` + tok + `'\n" > config.yaml`,
		`printf "[auth]\ntoken = '` + tok + `'\n" > cfg.toml`,
		`printf '[auth]\ntoken = "` + tok + `"\n' > cfg.toml`,
		`ruby -e 'require "net/http"; Net::HTTP.post_form(URI("https://api.example/login"), {"password" => "` + tok + `"})'`,
	} {
		if got := redactText(s, shell); strings.Contains(got, tok) {
			t.Errorf("shell: %s\nshown as %s", s, got)
		}
		if got := RedactText(s); strings.Contains(got, tok) {
			t.Errorf("text: %s\nshown as %s", s, got)
		}
	}
}
