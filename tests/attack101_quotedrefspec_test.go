package tests

import (
	"net/http"
	"strings"
	"testing"
)

// TestAttack101_QuotedRefspecCard: end to end, the domain test
// TestAttack101_QuotedRefspecHidesBranch. The agent asks to force-push a
// branch named token-expiry onto main, the refspec's sides quoted:
//
//	git push -f origin "token-expiry":"main"
//
// The approval request (GET /v1/approvals/{id}: the console's card) reads
// `git push -f origin "token-expiry":"[redacted]"`: which branch the push
// overwrites is hidden as a credential. Control: the same push written
// unquoted (token-expiry:main) shows main.
func TestAttack101_QuotedRefspecCard(t *testing.T) {
	s := StartServer(t, "")
	agent := roAs(s, s.credential("agent", "runtime"))
	root := workspace(t)
	agent.startTurn("qr", "ws", "auto_accept_edits", root)
	ask := func(id, script string) map[string]string {
		t.Helper()
		status, a := agent.exec("qr", "", map[string]any{"tool_call_id": id, "argv": []string{"sh", "-c", script}})
		if status != http.StatusAccepted || a.Request == nil {
			t.Fatalf("%s: %d %+v, want 202 ask", id, status, a)
		}
		d := a91Details(t, s, a.Request.RequestID)
		s.respond(a.Request.RequestID, "deny")
		return d
	}
	if cd := ask("control", `git push -f origin token-expiry:main`); !strings.Contains(cd["Command"], "token-expiry:main") {
		t.Fatalf("control: the refspec is not shown: %v", cd)
	}
	d := ask("push", `git push -f origin "token-expiry":"main"`)
	if !strings.Contains(d["Command"], `"main"`) || !strings.Contains(d["(summary)"], `"main"`) {
		t.Errorf("the person is asked to approve %q (Command %q); the push overwrites main", d["(summary)"], d["Command"])
	}
}
