package tests

import (
	"net/http"
	"strings"
	"testing"
)

// TestAttack101_MemberAfterParenRecorded: end to end, the domain test
// TestAttack101_MemberAfterParenShown. An agent (or an honest one) writes
// a config file (it was a Python one-liner, its member after '(' and
// '{', which the domain test still reads; a language's inline code is not
// plain and is shown whole since the hundred-and-sixth review):
//
//	printf '%s\n' '{"api_key": "Zq8x…"}' > cfg.json
//
// The approval card and the turn's stored events hold the key in clear:
// the member's name, first after '(' and '{', reads as the program a
// subshell runs (programWord does not read the single quotes), and a
// value in the program's word is kept in view. Control: the same member
// in curl's body is hidden.
func TestAttack101_MemberAfterParenRecorded(t *testing.T) {
	s := StartServer(t, "")
	agent := roAs(s, s.credential("agent", "runtime"))
	root := workspace(t)
	agent.startTurn("mp", "ws", "auto_accept_edits", root)
	const tok = "Zq8xLmN3pQ7rT2vW"

	control := `curl -sS -d '{"api_key": "` + tok + `"}' https://api.acme.io/v1`
	status, c := agent.exec("mp", "", map[string]any{"tool_call_id": "control", "argv": []string{"sh", "-c", control}})
	if status != http.StatusAccepted || c.Request == nil {
		t.Fatalf("control: %d %+v, want 202 ask", status, c)
	}
	if cd := a91Details(t, s, c.Request.RequestID); strings.Contains(cd["Command"], tok) || !strings.Contains(cd["Command"], "[redacted]") {
		t.Fatalf("control: the key is not hidden on the card: %v", cd)
	}
	if _, raw := s.events("mp"); strings.Contains(string(raw), tok) {
		t.Fatalf("control: the key is in the events")
	}
	s.respond(c.Request.RequestID, "deny")

	cmd := `printf '%s\n' '{"api_key": "` + tok + `"}' > cfg.json`
	status, d := agent.exec("mp", "", map[string]any{"tool_call_id": "write", "argv": []string{"sh", "-c", cmd}})
	if status != http.StatusAccepted || d.Request == nil {
		t.Fatalf("exec: %d %+v, want 202 ask", status, d)
	}
	shown := a91Details(t, s, d.Request.RequestID)
	if strings.Contains(shown["Command"], tok) || strings.Contains(shown["(summary)"], tok) {
		t.Errorf("the approval card shows the key: %q", shown["Command"])
	}
	if _, raw := s.events("mp"); strings.Contains(string(raw), tok) {
		t.Errorf("the turn's events record the key in clear")
	}
	s.respond(d.Request.RequestID, "deny")
}
