package tests

import (
	"net/http"
	"strings"
	"testing"
)

// TestAttack99_MemberExposedRecorded: end to end, the domain test
// TestAttack99_MemberShownWhereEnvironReadByName. The agent (or an honest
// one) writes a Python settings module with a here-document, one member
// of which reads the environment by name:
//
//	cat > settings.py <<EOF
//	import os
//	CONFIG = {
//	    "api_key": "…",
//	    "region": os.environ.get("REGION", "eu"),
//	}
//	EOF
//
// The approval card and the turn's stored events hold the key in clear.
// Control: the same module with "region": "eu" hides it on the card and
// in the events.
func TestAttack99_MemberExposedRecorded(t *testing.T) {
	s := StartServer(t, "")
	agent := roAs(s, s.credential("agent", "runtime"))
	root := workspace(t)
	agent.startTurn("me", "ws", "auto_accept_edits", root)
	const tok = "Zq8xLmN3pQ7rT2vW"
	script := func(region string) string {
		return "cat > settings.py <<EOF\nimport os\nCONFIG = {\n    \"api_key\": \"" + tok + "\",\n    \"region\": " + region + ",\n}\nEOF"
	}

	status, c := agent.exec("me", "", map[string]any{"tool_call_id": "control", "argv": []string{"sh", "-c", script(`"eu"`)}})
	if status != http.StatusAccepted || c.Request == nil {
		t.Fatalf("control: %d %+v, want 202 ask", status, c)
	}
	if cd := a91Details(t, s, c.Request.RequestID); strings.Contains(cd["Command"], tok) || !strings.Contains(cd["Command"], "[redacted]") {
		t.Fatalf("control: the key is not hidden on the card: %v", cd)
	}
	if _, raw := s.events("me"); strings.Contains(string(raw), tok) {
		t.Fatalf("control: the key is in the events")
	}
	s.respond(c.Request.RequestID, "deny")

	status, d := agent.exec("me", "", map[string]any{"tool_call_id": "write", "argv": []string{"sh", "-c", script(`os.environ.get("REGION", "eu")`)}})
	if status != http.StatusAccepted || d.Request == nil {
		t.Fatalf("exec: %d %+v, want 202 ask", status, d)
	}
	shown := a91Details(t, s, d.Request.RequestID)
	if strings.Contains(shown["Command"], tok) || strings.Contains(shown["(summary)"], tok) {
		t.Errorf("the approval card shows the key: %q", shown["Command"])
	}
	if _, raw := s.events("me"); strings.Contains(string(raw), tok) {
		t.Errorf("the turn's events record the key in clear")
	}
	s.respond(d.Request.RequestID, "deny")
}
