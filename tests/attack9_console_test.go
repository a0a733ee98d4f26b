package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestAttack9ConsoleCardMovesUnderTheClick: the console listed the pending
// requests first and moved a request that stopped being pending to the end
// of the page, so the agent could pull a card out from under the person's
// pointer. It opens two requests that look alike, a harmless one first (its
// card on top) and its own below; while the person reads the top card and
// points at its Allow once, the agent ends the harmless request's turn (a
// runtime credential may), and its own card slides up into the place: the
// click allowed the agent's command. (The console's counterpart of the
// request-id prefix the CLI now confirms.) Cards now keep their place: the
// click lands on the harmless card, now resolved, and allows nothing. The
// control: the person's click on the agent's card, where it is, still
// answers it.
func TestAttack9ConsoleCardMovesUnderTheClick(t *testing.T) {
	s := StartServer(t, "")
	approver := s.credential("alice", "approver")
	agent := "Bearer " + s.credential("agent", "runtime")
	ctx := browser(t)
	signIn(t, ctx, s, approver)
	run(t, ctx, "the event stream goes live", chromedp.WaitVisible(`#conn[data-state="live"]`, chromedp.ByQuery),
		chromedp.WaitVisible("#pending-count", chromedp.ByID))

	// The agent: two supervised turns, one request each, alike but for the
	// command (of the same length).
	root := workspace(t)
	requestIn := func(turnID, cmd string) string {
		t.Helper()
		if st, b := s.Request("POST", "/v1/turns", map[string]any{"turn_id": turnID, "workspace_id": "ws", "workspace_root": root,
			"permission_profile": map[string]any{"mode": "supervised"}}, "Authorization", agent); st != http.StatusCreated {
			t.Fatalf("start %s: %d %s", turnID, st, b)
		}
		st, b := s.Request("POST", "/v1/turns/"+turnID+"/decisions", map[string]any{"tool_call_id": "call-1", "tool_name": "exec_command",
			"arguments": map[string]any{"cmd": cmd}}, "Authorization", agent)
		var d struct {
			Request struct {
				RequestID string `json:"request_id"`
			} `json:"request"`
		}
		if st != http.StatusOK || json.Unmarshal(b, &d) != nil || d.Request.RequestID == "" {
			t.Fatalf("decide in %s: %d %s", turnID, st, b)
		}
		return d.Request.RequestID
	}
	harmless := requestIn("t-ok", "echo harmless")
	evil := requestIn("t-ev", "rm -rf ~/code")
	run(t, ctx, "both requests are shown", chromedp.WaitVisible(`#req-`+evil+`[data-status="pending"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#req-`+harmless+`[data-status="pending"]`, chromedp.ByQuery))

	// The person points at the harmless request's Allow once.
	var at struct{ X, Y float64 }
	run(t, ctx, "where the button is", chromedp.Evaluate(`(() => {
		const b = document.querySelector('#req-`+harmless+` button[data-resolution="allow_once"]');
		b.scrollIntoView({block: "center"});
		const r = b.getBoundingClientRect();
		return {X: r.left + r.width / 2, Y: r.top + r.height / 2};
	})()`, &at))

	// The agent ends the harmless request's turn; the console shows it.
	if st, b := s.Request("POST", "/v1/turns/t-ok/interrupt", nil, "Authorization", agent); st != http.StatusOK {
		t.Fatalf("interrupt: %d %s", st, b)
	}
	run(t, ctx, "the harmless request is shown resolved", chromedp.WaitVisible(`#req-`+harmless+`[data-status="resolved"]`, chromedp.ByQuery))

	// The person clicks where they pointed.
	// Where the person clicks is still the harmless card (the property,
	// read from the page, not waited for): a card that moved would put
	// the agent's there.
	var under string
	run(t, ctx, "what lies under the pointer", chromedp.Evaluate(fmt.Sprintf(`(() => {
		const e = document.elementFromPoint(%f, %f);
		const card = e && e.closest('[id^="req-"]');
		return card ? card.id : "";
	})()`, at.X, at.Y), &under))
	if under != "req-"+harmless {
		t.Fatalf("under the pointer after the harmless request resolved: %q, want req-%s: its card moved", under, harmless)
	}
	run(t, ctx, "the click", chromedp.MouseClickXY(at.X, at.Y))
	var a struct {
		Status     string `json:"status"`
		Resolution string `json:"resolution"`
	}
	s.JSON("GET", "/v1/approvals/"+evil, nil, http.StatusOK, &a)
	if a.Status != "pending" {
		t.Fatalf("the click meant for the harmless request resolved the agent's (%s %s): its card moved under the pointer", a.Status, a.Resolution)
	}

	// The control: a click on the agent's card's own button answers it.
	run(t, ctx, "deny the agent's request", clickAnswer(`#req-`+evil+` button[data-resolution="deny"]`),
		chromedp.WaitVisible(`#req-`+evil+`[data-status="resolved"]`, chromedp.ByQuery))
	s.JSON("GET", "/v1/approvals/"+evil, nil, http.StatusOK, &a)
	if a.Status != "resolved" || a.Resolution != "deny" {
		t.Fatalf("the agent's request after its own Deny: %s %s", a.Status, a.Resolution)
	}
}
