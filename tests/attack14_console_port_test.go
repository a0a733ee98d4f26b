package tests

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestAttack14ConsoleSessionOnAnotherPort: a browser sends a host's
// cookies to every port of that host (RFC 6265 §8.5), and SameSite counts
// no port either. The agent, whose commands run as the user or, in a
// full_access turn, may listen on loopback, served a page on another port
// of the console's host (a dev server's preview); the approver signed in
// to the console opened it, and the browser sent it the console's session
// cookie. With that cookie alone, from a plain HTTP client, the agent read
// the session's CSRF token from GET /ui/session and answered its own
// approval request allow_once as the approver. A session request now needs
// the CSRF token on every request (GET /ui/session and the event stream
// too), which only the sign-in answer gives and the console keeps in its
// origin's sessionStorage, which no other port reads. The control: the
// console itself, reloaded in the same tab, answers the request.
func TestAttack14ConsoleSessionOnAnotherPort(t *testing.T) {
	s := StartServer(t, "")
	approver := s.credential("alice", "approver")
	agent := roAs(s, s.credential("agent", "runtime"))
	ctx := browser(t)
	signIn(t, ctx, s, approver)
	run(t, ctx, "the console goes live", chromedp.WaitVisible(`#conn[data-state="live"]`, chromedp.ByQuery))

	root := workspace(t)
	agent.JSON("POST", "/v1/turns", map[string]any{"turn_id": "ag", "workspace_id": "ws", "thread_id": "th", "workspace_root": root,
		"permission_profile": map[string]any{"mode": "supervised"}}, http.StatusCreated, nil)
	var dec struct {
		Request struct {
			RequestID string `json:"request_id"`
		} `json:"request"`
	}
	agent.JSON("POST", "/v1/turns/ag/exec", map[string]any{"tool_call_id": "c1", "argv": []string{"true"}}, http.StatusAccepted, &dec)
	rid := dec.Request.RequestID

	// The agent's server on another port of the same host.
	cookies := make(chan string, 16)
	dev := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cookies <- r.Header.Get("Cookie")
		io.WriteString(w, "<html><body>preview</body></html>")
	}))
	defer dev.Close()
	run(t, ctx, "the person opens the preview", chromedp.Navigate(dev.URL), chromedp.WaitReady("body", chromedp.ByQuery))
	var cookie string
	for len(cookies) > 0 {
		if c := <-cookies; strings.Contains(c, "turnstile_session=") {
			cookie = c
		}
	}
	if cookie == "" {
		t.Fatal("premise: the browser did not send the console's session cookie to another port of its host")
	}
	call := func(method, path, body, csrf string) (int, []byte) {
		req, _ := http.NewRequest(method, s.URL+path, strings.NewReader(body))
		req.Header.Set("Cookie", cookie)
		if csrf != "" {
			req.Header.Set("X-CSRF-Token", csrf)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	var info struct {
		CSRF string `json:"csrf_token"`
	}
	_, b := call("GET", "/ui/session", "", "")
	_ = json.Unmarshal(b, &info)
	if st, b := call("POST", "/v1/approvals/"+rid+"/respond", `{"resolution":"allow_once"}`, info.CSRF); st == http.StatusOK {
		t.Errorf("the agent answered its own request with the approver's session cookie, which its server on another port received: %s", b)
	}
	if st, b := call("GET", "/v1/approvals?status=pending", "", ""); st == http.StatusOK {
		t.Errorf("the session cookie alone reads the approvals: %s", b)
	}

	// Control: the console, reloaded in its tab, answers the request.
	run(t, ctx, "back to the console", chromedp.Navigate(s.URL+"/ui/#/approvals"),
		chromedp.WaitVisible(`#conn[data-state="live"]`, chromedp.ByQuery), chromedp.WaitVisible(`#req-`+rid, chromedp.ByQuery))
	var a struct {
		Status     string `json:"status"`
		Resolution string `json:"resolution"`
	}
	s.JSON("GET", "/v1/approvals/"+rid, nil, http.StatusOK, &a)
	if a.Status != "pending" {
		t.Fatalf("the request is %s (%s) before the console answers it", a.Status, a.Resolution)
	}
	run(t, ctx, "allow once", clickAnswer(`#req-`+rid+` button[data-resolution="allow_once"]`),
		chromedp.WaitVisible(`#req-`+rid+`[data-status="resolved"]`, chromedp.ByQuery))
	s.JSON("GET", "/v1/approvals/"+rid, nil, http.StatusOK, &a)
	if a.Status != "resolved" || a.Resolution != "allow_once" {
		t.Fatalf("control: the console's answer: %s %s", a.Status, a.Resolution)
	}
}
