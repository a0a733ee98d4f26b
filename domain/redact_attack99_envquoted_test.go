package domain

import (
	"strings"
	"testing"
)

// TestAttack99_EnvQuotedNameHidesProgram (ninety-ninth review, on 8e5dca9
// and 9b1b47f, medium: the program a command runs hidden from the person
// approving it). The member pattern (meant for JSON and TOML:
// `"api_key": "x"`, `"token" = "x"`) takes a quoted secret name, ':' '='
// or '=>', blanks, and a quoted value. In a shell command
//
//	env "CLEANUP_TOKEN"= "rm" -rf src
//
// the shell removes the quotes: env gets CLEANUP_TOKEN= (an assignment of
// an empty value) and then runs the next word, rm, as the program. The
// member pattern reads `"CLEANUP_TOKEN"= "rm"` as a secret member and
// hides "rm": the card reads `env "CLEANUP_TOKEN"= "[redacted]" -rf src`.
// The same with sudo (`sudo "X_TOKEN"= "python3" x.py`) and with single
// quotes. The README: "in a shell command the word that is the program it
// runs ... stays shown"; before 8e5dca9 (no member pattern) it was.
//
// Why none of the checks keeps it: exposedValue (no $CLEANUP_TOKEN is
// expanded), yamlLine (not a line's start), programWord at the name
// (its word is `"CLEANUP_TOKEN"=`, not the program), and ownWordInView's
// programWord at the value: commandStart does not know env or sudo as a
// command that runs the next word, nor a quoted NAME= as an assignment
// word (assignmentWord wants the name unquoted).
//
// Root cause: domain/redact.go secretRes member (`[ \t]*` after the
// separator lets the value be a word of its own after an '=') with
// redact_exposed.go programWord/commandStart not reading env/sudo and
// their (quoted) assignments.
//
// Fix: a member whose separator is '=' and whose value is a separate shell
// word is no member (JSON never writes "name"=; TOML's "name" = "x" has a
// blank before the '=' too, so require `"name"[ \t]+=` or `:`), or teach
// commandStart that env and sudo (after NAME=… words, quoted or not, and
// their options) run the next word.
func TestAttack99_EnvQuotedNameHidesProgram(t *testing.T) {
	shell := textMode{shell: true, keysShown: true}
	const tok = "Zq8xLmN3pQ7rT2vW"
	// Controls: the same command with the name unquoted shows rm; a
	// quoted JSON or TOML member's credential is hidden.
	for _, c := range []struct{ in, want string }{
		{`env CLEANUP_TOKEN= "rm" -rf src`, `"rm" -rf src`},
		{`env "CLEANUP_TOKEN"="" "rm" -rf src`, `"rm" -rf src`},
	} {
		if got := redactText(c.in, shell); !strings.Contains(got, c.want) {
			t.Fatalf("control: %s\nshown as %s, want %q in view", c.in, got, c.want)
		}
	}
	for _, s := range []string{
		`curl -d '{"api_key": "` + tok + `"}' https://api.example/v1`,
		`printf '"token" = "` + tok + `"\n' >> cfg.toml`,
	} {
		if got := redactText(s, shell); strings.Contains(got, tok) {
			t.Fatalf("control: credential shown: %s", got)
		}
	}
	for _, c := range []struct{ in, want string }{
		{`env "CLEANUP_TOKEN"= "rm" -rf src`, `"rm"`},
		{`env 'CLEANUP_TOKEN'= 'rm' -rf src`, `'rm'`},
		{`sudo "API_TOKEN"= "python3" x.py`, `"python3"`},
		{`env "GH_TOKEN"= "bash" notes.md`, `"bash"`},
	} {
		if got := redactText(c.in, shell); !strings.Contains(got, c.want) {
			t.Errorf("shell: %s\nshown as %s, want %q in view", c.in, got, c.want)
		}
	}
}
