package tests

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestAttack54ConsoleCookieTossedFromAnotherPort: the console keeps its
// session in a cookie named plainly "turnstile_session" (api/ui.go,
// consoleSignIn: Path "/", no __Host- prefix), and every API request of the
// console is authenticated by the FIRST cookie of that name the request
// carries (api/ui.go consoleSession: r.Cookie(sessionCookie)). A browser
// shares a host's cookies among all its ports, both ways (RFC 6265 §8.5):
// a page on another port of the console's host — the agent's dev server,
// which ui.go's own comment on checkCSRF names as the threat — may SET a
// cookie for that host too. The agent's page sets
// "turnstile_session=<junk>; Path=/v1; Max-Age=<a year>"; the browser then
// sends, on every /v1 request of the console, the tossed cookie first
// (longer path first, RFC 6265 §5.4) and the real session second. The
// server reads the junk, answers 401, and the console signs the person out;
// signing in again sets a new Path=/ cookie that the tossed one still
// precedes. From then on the person can answer no approval request from
// the console (the agent's requests expire unanswered) for as long as the
// agent chose, with nothing on the server side to see.
//
// The secure outcome: a request carrying a valid session cookie among the
// cookies of that name is authenticated by it (or the cookie is one no
// other port can set, __Host- over TLS), so the person's click answers the
// request. Control: before the person opens the agent's page, the console
// answers a request of the same turn with the same click.
//
// Severity: low (availability of the approval channel: the agent answers
// nothing itself, but silences the person's console at will).
func TestAttack54ConsoleCookieTossedFromAnotherPort(t *testing.T) {
	s := StartServer(t, "")
	approver := s.credential("alice", "approver")
	agent := roAs(s, s.credential("agent", "runtime"))
	ctx := browser(t)
	signIn(t, ctx, s, approver)
	run(t, ctx, "the console goes live", chromedp.WaitVisible(`#conn[data-state="live"]`, chromedp.ByQuery))

	root := workspace(t)
	agent.JSON("POST", "/v1/turns", map[string]any{"turn_id": "toss", "workspace_id": "ws", "thread_id": "th", "workspace_root": root,
		"permission_profile": map[string]any{"mode": "supervised"}}, http.StatusCreated, nil)
	ask := func(call string) string {
		var dec struct {
			Request struct {
				RequestID string `json:"request_id"`
			} `json:"request"`
		}
		agent.JSON("POST", "/v1/turns/toss/exec", map[string]any{"tool_call_id": call, "argv": []string{"true"}}, http.StatusAccepted, &dec)
		if dec.Request.RequestID == "" {
			t.Fatalf("premise: exec %s opened no approval request", call)
		}
		return dec.Request.RequestID
	}
	// answer clicks allow_once on rid's card and reports what the console
	// came to: "resolved", or "signedout" when the answer was refused and
	// the console dropped its session.
	answer := func(rid string) string {
		run(t, ctx, "the card of "+rid+" shows", chromedp.WaitVisible(`#req-`+rid, chromedp.ByQuery))
		var got string
		run(t, ctx, "allow once "+rid, clickAnswer(`#req-`+rid+` button[data-resolution="allow_once"]`),
			chromedp.Poll(`document.querySelector('#req-`+rid+`[data-status="resolved"]') ? "resolved" : (document.getElementById("signin").hidden ? "" : "signedout")`, &got, chromedp.WithPollingInterval(50*time.Millisecond)))
		return got
	}
	status := func(rid string) string {
		var a struct {
			Status     string `json:"status"`
			Resolution string `json:"resolution"`
		}
		s.JSON("GET", "/v1/approvals/"+rid, nil, http.StatusOK, &a)
		return a.Status + " " + a.Resolution
	}

	// Control: the console answers a request before the person visits the
	// agent's page.
	first := ask("c1")
	if got := answer(first); got != "resolved" || status(first) != "resolved allow_once" {
		t.Fatalf("control: the console's answer before the visit: %q, the request %s", got, status(first))
	}

	// The agent's server on another port of the same host (127.0.0.1)
	// tosses a session cookie of its own for /v1.
	dev := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Set-Cookie", "turnstile_session=tossed-by-the-agent; Path=/v1; Max-Age=31536000")
		io.WriteString(w, "<html><body>preview</body></html>")
	}))
	defer dev.Close()
	second := ask("c2")
	// The person opens the preview in another tab; the console's tab stays.
	tab, cancel := chromedp.NewContext(ctx)
	defer cancel()
	run(t, tab, "the person opens the agent's preview in another tab", chromedp.Navigate(dev.URL), chromedp.WaitReady("body", chromedp.ByQuery))
	cancel() // and closes it: the console's tab is the one left

	if got := answer(second); got != "resolved" {
		t.Errorf("after the person opened the agent's page on another port, the console's allow_once of %s came to %q (the request is %s): the cookie it tossed for /v1 precedes the session's, and the console can answer nothing", second, got, status(second))
	}
}
