package domain

import (
	"strings"
	"testing"
)

// TestAttack101_MemberAfterParenShown (medium: a credential recorded and
// shown in forms developers write every day). In a shell command
// (exec_command, a Claude Code Bash call) a secret-named member's value is
// shown when the member's NAME reads as "the program the shell runs"
// (replaceClipped: o.shell && !yamlLine && programWord(s, name)).
// programWord reads the shell's syntax without its quoting: a '(' or '{'
// inside a script in single quotes (python3 -c '…', ruby -e '…', node -e
// '…', perl -e '…') reads as a subshell or a group, so the word after it
// is "a program". Every call's keyword arguments, hash or object literal
// opened by '(' or '{' has its first member so read:
//
//	python3 -c 'import json; print(json.dumps({"api_key": "Zq8x…"}))' > cfg.json
//	ruby -e 'c = Octokit::Client.new(access_token: "Zq8x…")'
//	node -e 'fetch(u, {method: "POST", body: JSON.stringify({token: "Zq8x…"})})'
//	perl -e 'my %h = (token => "Zq8x…")'
//	ruby -e 'puts({ "api_key" => "Zq8x…" }.to_json)'
//
// each is shown with its token on the approval card and recorded in
// events, audit and timeline. The same members after '=' or ', ' (not
// first after '(' or '{'), and the same texts read as no shell command
// (RedactText), hide it (controls).
//
// Root cause: domain/redact.go replaceClipped applies the "value in the
// program's word" rule (programWord, domain/redact_exposed.go, which does
// not read quotes) to the member, memberBare and quotedAssign patterns'
// names; a JSON, YAML, TOML, Ruby or Perl member's name is never a
// program (8e5dca9/9b1b47f: "a member's value is data", d3bd644 dropped the
// exposed check for the same reason but kept this one).
// Fix: do not apply programWord/pathWordNoAssignment to member and
// memberBare matches (keep the ownWord checks: a host, an option); or
// have programWord read the quote state (quoteOpen) and give up inside a
// string no nested shell reads.
func TestAttack101_MemberAfterParenShown(t *testing.T) {
	shell := textMode{shell: true, keysShown: true}
	const tok = "Zq8xLmN3pQ7rT2vW"
	for _, s := range []string{
		`python3 -c 'import requests; requests.post(u, json={"api_key": "` + tok + `"})'`,
		`ruby -e 'h = {token: "` + tok + `"}'`,
		`perl -e 'my %h = (password => q(x), token => "` + tok + `")'`,
		`curl -d '{"api_key": "` + tok + `"}' https://api.acme.io/v1/login`,
	} {
		if got := redactText(s, shell); strings.Contains(got, tok) || !strings.Contains(got, "[redacted]") {
			t.Fatalf("control: %s\nshown as %s", s, got)
		}
	}
	for _, s := range []string{
		`python3 -c 'import json; print(json.dumps({"api_key": "` + tok + `"}))' > cfg.json`,
		`ruby -e 'c = Octokit::Client.new(access_token: "` + tok + `")'`,
		`node -e 'fetch(u, {method: "POST", body: JSON.stringify({token: "` + tok + `"})})'`,
		`perl -e 'my %h = (token => "` + tok + `")'`,
		`ruby -e 'puts({ "api_key" => "` + tok + `" }.to_json)'`,
	} {
		if got := RedactText(s); strings.Contains(got, tok) {
			t.Fatalf("control (text): %s\nshown as %s", s, got)
		}
		if got := redactText(s, shell); strings.Contains(got, tok) {
			t.Errorf("shell: %s\nshown as %s", s, got)
		}
	}
}
