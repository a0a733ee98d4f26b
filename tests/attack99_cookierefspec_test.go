package tests

import (
	"net/http"
	"strings"
	"testing"
)

// TestAttack99_CookieRefspecCard: end to end, the domain test
// TestAttack99_CookieRefspecHidden. The agent asks to force-push its
// branch fix/session-cookie with a refspec:
//
//	git push --force origin fix/session-cookie:main
//
// The approval card reads `git push --force origin
// fix/session-cookie:[redacted]`: which branch of the remote is
// overwritten (main) is hidden. Control: the same push of a branch named
// fix/session-token is shown whole (the 96th review's fix).
func TestAttack99_CookieRefspecCard(t *testing.T) {
	s := StartServer(t, "")
	agent := roAs(s, s.credential("agent", "runtime"))
	root := workspace(t)
	agent.startTurn("cr", "ws", "auto_accept_edits", root)

	ask := func(id, cmd string) map[string]string {
		t.Helper()
		status, a := agent.exec("cr", "", map[string]any{"tool_call_id": id, "argv": []string{"sh", "-c", cmd}})
		if status != http.StatusAccepted || a.Request == nil {
			t.Fatalf("%s: %d %+v, want 202 ask", id, status, a)
		}
		d := a91Details(t, s, a.Request.RequestID)
		s.respond(a.Request.RequestID, "deny")
		return d
	}
	if cd := ask("control", `git push --force origin fix/session-token:main`); !strings.Contains(cd["Command"], "fix/session-token:main") {
		t.Fatalf("control: the push is not shown whole: %v", cd)
	}
	if d := ask("push", `git push --force origin fix/session-cookie:main`); !strings.Contains(d["Command"], "fix/session-cookie:main") ||
		!strings.Contains(d["(summary)"], "fix/session-cookie:main") {
		t.Errorf("the person is asked to approve %q (Command %q); the push overwrites main", d["(summary)"], d["Command"])
	}
}
