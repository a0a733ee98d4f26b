package domain

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAttack94_BearerTokenShownAgain: README ("What a decision guarantees",
// Secrets in commands) promises a bearer credential stays hidden in what
// is shown and recorded. The ninety-first review's fix (bearerContext)
// hides the word after "Bearer" only after an Authorization header's name
// and separator (authorizationBefore) and, in a shell command, only in the
// same shell word as that name (wordGoesOn, which reads one line from its
// start). Honest text that held a real token and was redacted before
// base94 now shows it, in the approval card and in the recorded event:
//
//	export AUTH="Bearer <tok>"                       (the name is no "Authorization")
//	echo "Bearer <tok>" > .token
//	cat > cfg.yaml <<EOF / Authorization: Bearer <tok>   (a here-document's line: its
//	                                                  blanks are unquoted as a line)
//	MCP {"headers":{"auth":"Bearer <tok>"}}           (a tool's arguments)
//	MCP {"code":"headers = {\"Authorization\": f\"Bearer <tok>\"}"}  (f"…": a letter
//	                                                  between the separator and the quote)
//
// Wanted: a token after "Bearer" is hidden wherever it is not a word that
// decides what the command does (an option, a host, a program, a path):
// the ninety-first review's hole was the decisive word hidden, and
// ownWordInView now keeps those in view on its own; the context check
// (bearerContext) is not needed for them and un-hides every token that
// stands anywhere else.
// Control: the header form still hidden, and the decisive words of the
// ninety-first review still shown.
func TestAttack94_BearerTokenShownAgain(t *testing.T) {
	const tok = "S3cretBearerValue42"
	shownOf := func(inv Invocation) string {
		t.Helper()
		a, err := Classify(inv, "/w", nil)
		if err != nil {
			t.Fatal(err)
		}
		r := a.Redacted()
		var b strings.Builder
		b.WriteString(r.Summary)
		for _, d := range r.Details {
			b.WriteString("\n" + d.Label + ": " + d.Value)
		}
		scope, summary := a.RedactedRecord()
		b.WriteString("\n(recorded) " + summary)
		for _, e := range scope {
			b.WriteString("\n(recorded) " + e.Key + "=" + e.Value)
		}
		return b.String()
	}
	exec := func(cmd string) Invocation {
		args, _ := json.Marshal(map[string]any{"cmd": cmd})
		return Invocation{ToolName: "exec_command", Arguments: args}
	}
	mcp := func(args map[string]any) Invocation {
		b, _ := json.Marshal(args)
		return Invocation{ToolName: "mcp__api__call", Arguments: b}
	}

	// Control: the header form hidden; the decisive words shown.
	if s := shownOf(exec(`curl -sH "Authorization: Bearer ` + tok + `" https://api.example/v1/me`)); strings.Contains(s, tok) {
		t.Fatalf("control: the header's bearer token in view:\n%s", s)
	}
	if s := shownOf(exec(`find . ! -name Bearer -delete`)); !strings.Contains(s, "-delete") {
		t.Fatalf("control: -delete hidden:\n%s", s)
	}

	for _, inv := range []Invocation{
		exec(`export AUTH="Bearer ` + tok + `"`),
		exec(`echo "Bearer ` + tok + `" > .token`),
		exec("cat > cfg.yaml <<EOF\nheaders:\n  Authorization: Bearer " + tok + "\nEOF"),
		exec("curl -H @- https://api.example/v1/me <<EOF\nAuthorization: Bearer " + tok + "\nEOF"),
		mcp(map[string]any{"headers": map[string]any{"auth": "Bearer " + tok}}),
		mcp(map[string]any{"code": `headers = {"Authorization": f"Bearer ` + tok + `"}`}),
	} {
		if s := shownOf(inv); strings.Contains(s, tok) {
			t.Errorf("%s %s\nis shown and recorded as\n%s\n(the bearer token in view; base93 hid it)", inv.ToolName, inv.Arguments, s)
		}
	}
}
