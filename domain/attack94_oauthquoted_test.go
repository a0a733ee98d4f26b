package domain

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAttack94_BearerOptionQuotedShown: the ninety-first review's fix says
// the argument of --oauth2-bearer is hidden (bearerContext: "after an
// option whose name ends in bearer") and that a header written
// `-H Authorization:\ Bearer\ x` keeps its token hidden (redact_bearer.go's
// comment). Both only hold when the token follows "bearer" after plain
// blanks, unquoted: the bearer pattern is bearer\s+[token bytes]{6,}, so a
// quote or a backslash between them is no match, and the header pattern's
// value starts at the backslash (no token byte: nothing hidden). An
// honest command
//
//	curl --oauth2-bearer "<tok>" https://api.example/
//	curl --oauth2-bearer '<tok>' https://api.example/
//	curl -H Authorization:\ Bearer\ <tok> https://api.example/
//
// is shown and recorded with the token in view. (RedactArgv hides the
// argument after --oauth2-bearer in an argv; a command line's text is not
// read so.)
// Wanted: the argument of a bearer option and an escaped header's token
// are hidden quoted or escaped too.
// Control: the unquoted forms are hidden.
func TestAttack94_BearerOptionQuotedShown(t *testing.T) {
	const tok = "S3cretBearerValue42"
	shown := func(cmd string) string {
		t.Helper()
		args, _ := json.Marshal(map[string]any{"cmd": cmd})
		a, err := Classify(Invocation{ToolName: "exec_command", Arguments: args}, "/w", nil)
		if err != nil {
			t.Fatal(err)
		}
		r := a.Redacted()
		var b strings.Builder
		b.WriteString(r.Summary)
		for _, d := range r.Details {
			b.WriteString("\n" + d.Label + ": " + d.Value)
		}
		return b.String()
	}
	for _, cmd := range []string{
		`curl --oauth2-bearer ` + tok + ` https://api.example/`,
		`curl -H "Authorization: Bearer ` + tok + `" https://api.example/`,
	} {
		if s := shown(cmd); strings.Contains(s, tok) {
			t.Fatalf("control: %s\nshown as\n%s", cmd, s)
		}
	}
	for _, cmd := range []string{
		`curl --oauth2-bearer "` + tok + `" https://api.example/`,
		`curl --oauth2-bearer '` + tok + `' https://api.example/`,
		`curl -H Authorization:\ Bearer\ ` + tok + ` https://api.example/`,
	} {
		if s := shown(cmd); strings.Contains(s, tok) {
			t.Errorf("%s\nis shown as\n%s\n(the bearer token in view)", cmd, s)
		}
	}
}
