package tests

import (
	"net/http"
	"strings"
	"testing"
)

// TestAttack96_HeredocSecretRecorded: end to end, the domain test
// TestAttack96_MemberOnItsOwnLineShown. The agent (or an honest one) writes
// a config file the usual way, with a here-document:
//
//	cat > config.yaml <<'EOF'
//	database:
//	  password: "…"
//	EOF
//
// The approval request's command (GET /v1/approvals/{id}) and the turn's
// stored events hold the password in clear. Control: the same member
// written on one line by printf is hidden on the card and in the events.
func TestAttack96_HeredocSecretRecorded(t *testing.T) {
	s := StartServer(t, "")
	agent := roAs(s, s.credential("agent", "runtime"))
	root := workspace(t)
	agent.startTurn("hd", "ws", "auto_accept_edits", root)
	const tok = "Zq8xLmN3pQ7rT2vW"

	control := `printf 'database:\n  password: "` + tok + `"\n' > config.yaml`
	status, c := agent.exec("hd", "", map[string]any{"tool_call_id": "control", "argv": []string{"sh", "-c", control}})
	if status != http.StatusAccepted || c.Request == nil {
		t.Fatalf("control: %d %+v, want 202 ask", status, c)
	}
	if cd := a91Details(t, s, c.Request.RequestID); strings.Contains(cd["Command"], tok) || !strings.Contains(cd["Command"], "[redacted]") {
		t.Fatalf("control: the password is not hidden on the card: %v", cd)
	}
	if _, raw := s.events("hd"); strings.Contains(string(raw), tok) {
		t.Fatalf("control: the password is in the events")
	}
	s.respond(c.Request.RequestID, "deny")

	cmd := "cat > config.yaml <<'EOF'\ndatabase:\n  host: db.internal\n  password: \"" + tok + "\"\nEOF"
	status, d := agent.exec("hd", "", map[string]any{"tool_call_id": "write", "argv": []string{"sh", "-c", cmd}})
	if status != http.StatusAccepted || d.Request == nil {
		t.Fatalf("exec: %d %+v, want 202 ask", status, d)
	}
	shown := a91Details(t, s, d.Request.RequestID)
	if strings.Contains(shown["Command"], tok) {
		t.Errorf("the approval card shows the password: %q", shown["Command"])
	}
	if _, raw := s.events("hd"); strings.Contains(string(raw), tok) {
		t.Errorf("the turn's events record the password in clear")
	}
}
