package tests

import (
	"net/http"
	"strings"
	"testing"
)

// TestAttack99_SingleQuotedMemberRecorded: end to end, the domain test
// TestAttack99_SingleQuotedMemberInJoinedArgv. The runtime sends a body
// written the way Python writes a dict, with single quotes:
//
//	argv: ["curl", "-sS", "-d", "{'username': 'bot', 'password': '…'}", "https://api.example/v1/login"]
//
// The approval card (summary, Command) and the turn's stored events hold
// the password in clear: the command is shown as ShellJoin(argv), where
// each single quote is written as quote, backslash, quote, quote and the member pattern no longer matches. Control: the
// same one-liner with double quotes is hidden on the card and in the
// events. (It was a python3 -c one-liner; a language's inline code is
// not plain and is shown whole since the hundred-and-sixth review.)
func TestAttack99_SingleQuotedMemberRecorded(t *testing.T) {
	s := StartServer(t, "")
	agent := roAs(s, s.credential("agent", "runtime"))
	root := workspace(t)
	agent.startTurn("jq", "ws", "auto_accept_edits", root)
	const tok = "Zq8xLmN3pQ7rT2vW"
	body := `{'username': 'bot', 'password': '` + tok + `'}`
	argv := func(b string) []string { return []string{"curl", "-sS", "-d", b, "https://api.example/v1/login"} }

	status, c := agent.exec("jq", "", map[string]any{"tool_call_id": "control", "argv": argv(strings.ReplaceAll(body, "'", `"`))})
	if status != http.StatusAccepted || c.Request == nil {
		t.Fatalf("control: %d %+v, want 202 ask", status, c)
	}
	if cd := a91Details(t, s, c.Request.RequestID); strings.Contains(cd["Command"], tok) || !strings.Contains(cd["Command"], "[redacted]") {
		t.Fatalf("control: the password is not hidden on the card: %v", cd)
	}
	if _, raw := s.events("jq"); strings.Contains(string(raw), tok) {
		t.Fatalf("control: the password is in the events")
	}
	s.respond(c.Request.RequestID, "deny")

	status, d := agent.exec("jq", "", map[string]any{"tool_call_id": "login", "argv": argv(body)})
	if status != http.StatusAccepted || d.Request == nil {
		t.Fatalf("exec: %d %+v, want 202 ask", status, d)
	}
	shown := a91Details(t, s, d.Request.RequestID)
	if strings.Contains(shown["Command"], tok) || strings.Contains(shown["(summary)"], tok) {
		t.Errorf("the approval card shows the password: %q", shown["Command"])
	}
	if _, raw := s.events("jq"); strings.Contains(string(raw), tok) {
		t.Errorf("the turn's events record the password in clear")
	}
	s.respond(d.Request.RequestID, "deny")
}
