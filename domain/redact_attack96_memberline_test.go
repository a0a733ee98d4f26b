package domain

import (
	"strings"
	"testing"
)

// TestAttack96_MemberOnItsOwnLineShown (ninety-sixth review, on 8e5dca9,
// low-medium: a credential recorded and shown, in the commonest form).
// Review 95 found "a JSON member in a command, a TOML `token = "…"` and a
// YAML `token: x` line in a here-document" shown; 8e5dca9 added the member
// patterns and tested them on one-line commands only. In a shell command
// (exec_command, a Bash call, write_stdin) a member that starts its line
// is still shown whole: a YAML or TOML file written with a here-document,
// a JSON body pretty-printed over lines (curl -d @- <<EOF, -d '{⏎ …}'),
// which is how such files and bodies are written. The same text as a
// prompt (RedactText) is hidden.
//
// Why: the patterns run line by line, and replaceClipped shows a value
// whose *name* is the program word of a shell command
// (`o.shell && programWord(s, name)`: meant for `API_TOKEN=bin/x`, where
// the name and its value are one word, the program run). At a line's start
// `password:` or `"api_key":` reads as a command's first word, so the
// value after it, a word of its own, is shown as "the program".
//
// Root cause: domain/redact.go replaceClipped, the name check
// (programWord(s, m[2*o.name]) and pathWordNoAssignment) applied to the
// member patterns, whose value is a separate word.
//
// Fix: for member and memberBare, judge the value's own word (ownWordInView
// already checks programWord at the value); apply the name's program-word
// check only when name and value are one shell word (`token:"x"`).
func TestAttack96_MemberOnItsOwnLineShown(t *testing.T) {
	shell := textMode{shell: true, keysShown: true}
	const tok = "Zq8xLmN3pQ7rT2vW"
	// Controls: the same members on a line of a command with words before
	// them are hidden (8e5dca9), and so is the here-document as a prompt.
	for _, s := range []string{
		`curl -sS https://api.example/v1/login -d '{"username": "bot", "password": "` + tok + `"}'`,
		`printf 'database:\n  password: "` + tok + `"\n' > config.yaml`,
	} {
		if got := redactText(s, shell); strings.Contains(got, tok) {
			t.Fatalf("control: %s\nshown as %s", s, got)
		}
	}
	for _, s := range []string{
		"cat > config.yaml <<'EOF'\ndatabase:\n  host: db.internal\n  password: \"" + tok + "\"\nEOF",
		"cat > .cargo/credentials.toml <<'EOF'\n[registry]\ntoken = \"" + tok + "\"\nEOF",
		"curl -sS -X POST https://api.example/v1/login -H 'Content-Type: application/json' -d @- <<'EOF'\n{\n  \"username\": \"bot\",\n  \"password\": \"" + tok + "\"\n}\nEOF",
		"curl -sS https://api.example/v1/keys -d '{\n  \"api_key\": \"" + tok + "\"\n}'",
	} {
		if got := RedactText(s); strings.Contains(got, tok) {
			t.Fatalf("control (as a prompt): %s\nshown as %s", s, got)
		}
		if got := redactText(s, shell); strings.Contains(got, tok) {
			t.Errorf("shell: %s\nshown as %s", s, got)
		}
	}
}
