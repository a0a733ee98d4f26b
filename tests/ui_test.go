package tests

// The approval console (/ui) in a real headless Chromium driven by chromedp
// against the built binary.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// browser starts a headless Chromium with its own profile (its own cookie
// jar) and phone-width window. Chromium runs as root here, so the tests
// (only) pass --no-sandbox.
func browser(t *testing.T) context.Context {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium is not installed; .ci/run installs it (apt-get install chromium)")
		}
		t.Skip("chromium is not installed (set CI=true to make this a failure)")
	}
	// The profile is removed after the browser is gone; Chromium's helper
	// processes may still write to it for a moment after the main process
	// exits, so the removal is retried (bounded) until it succeeds.
	profile, err := os.MkdirTemp("", "turnstile-ui-")
	if err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.UserDataDir(profile), chromedp.WindowSize(412, 915))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	ctx, cancelC := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() {
		cancelC()
		cancelB()
		cancelA()
		var err error
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if err = os.RemoveAll(profile); err == nil {
				return
			}
		}
		t.Errorf("removing the browser profile %s: %v", profile, err)
	})
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx
}

// clickAnswer clicks the element sel selects, querying it again when the
// console re-rendered it between the query and the click (an event on the
// live stream redraws a request's card; chromedp then reports the node id
// it found as gone, "Could not find node with given id"): the click lands
// on the card as it is, as a person's would.
func clickAnswer(sel string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var err error
		for range 5 {
			if err = chromedp.Click(sel, chromedp.ByQuery).Do(ctx); err == nil || !strings.Contains(err.Error(), "Could not find node") {
				return err
			}
		}
		return err
	})
}

func run(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action) {
	t.Helper()
	if err := chromedp.Run(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// credential creates a named credential with role and returns its token.
func (s *Server) credential(name, role string) string {
	s.t.Helper()
	var out struct {
		Token string `json:"token"`
	}
	s.JSON("POST", "/v1/credentials", map[string]any{"name": name, "role": role}, http.StatusCreated, &out)
	return out.Token
}

// signIn opens the console and signs in with token.
func signIn(t *testing.T, ctx context.Context, s *Server, token string) {
	t.Helper()
	run(t, ctx, "sign in", chromedp.Navigate(s.URL+"/ui/"), chromedp.WaitVisible("#token", chromedp.ByID),
		chromedp.SendKeys("#token", token, chromedp.ByID), chromedp.Click("#signin-button", chromedp.ByID))
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	// Read in one evaluation: the console re-renders a list when an event
	// arrives, and a node found first and read after may be gone by then
	// ("No node with given id found"). Found, the element's text is read
	// at once; not found, the read waits for it again.
	q, _ := json.Marshal(sel)
	for range 5 {
		run(t, ctx, "wait for "+sel, chromedp.WaitReady(sel, chromedp.ByQuery))
		var s *string
		run(t, ctx, "read "+sel, chromedp.Evaluate(`(() => { const e = document.querySelector(`+string(q)+`); return e ? e.innerText : null; })()`, &s))
		if s != nil {
			return *s
		}
	}
	t.Fatalf("%s: replaced five times while it was read", sel)
	return ""
}

// consoleSecret is an environment value the API redacts: the console must
// never show it.
const consoleSecret = "sk-console-secret-4711"

type execAnswer struct {
	status int
	body   map[string]any
}

// execWaiting runs a command with ?wait= in the background (a runtime
// waiting for a person) and returns its answer on the channel.
func execWaiting(s *Server, turnID, callID string) chan execAnswer {
	ch := make(chan execAnswer, 1)
	go func() {
		status, body := s.Do("POST", "/v1/turns/"+turnID+"/exec?wait=60s", map[string]any{"tool_call_id": callID, "argv": []string{"echo", "console-" + callID},
			"env": map[string]string{"MY_API_KEY": consoleSecret}})
		var out map[string]any
		_ = json.Unmarshal(body, &out)
		ch <- execAnswer{status, out}
	}()
	return ch
}

func waitExec(t *testing.T, ch chan execAnswer) execAnswer {
	t.Helper()
	select {
	case a := <-ch:
		return a
	case <-time.After(60 * time.Second):
		t.Fatal("the waiting exec never returned")
		return execAnswer{}
	}
}

// TestConsoleApproveAndDenyLive: an approver signs in, sees a request
// appear without reloading, allows it, and the waiting ?wait= exec runs the
// command; a second browser sees the resolution; a denial is seen the
// other way round; a dropped connection shows "reconnecting".
func TestConsoleApproveAndDenyLive(t *testing.T) {
	s := StartServer(t, "")
	approver := s.credential("alice", "approver")
	a, b := browser(t), browser(t)
	for _, ctx := range []context.Context{a, b} {
		signIn(t, ctx, s, approver)
		run(t, ctx, "the event stream goes live", chromedp.WaitVisible(`#conn[data-state="live"]`, chromedp.ByQuery),
			chromedp.WaitVisible("#pending-count", chromedp.ByID))
	}
	// The secret is nowhere the page's script can read it.
	var leaked bool
	// (sessionStorage holds the session's CSRF token alone.)
	run(t, a, "inspect storage", chromedp.Evaluate(fmt.Sprintf(
		`document.cookie !== "" || localStorage.length > 0 || Object.keys(sessionStorage).some((k) => k !== "turnstile_csrf") || JSON.stringify(sessionStorage).includes(%q) || document.documentElement.outerHTML.includes(%q)`, approver, approver), &leaked),
		chromedp.Evaluate(`window.__noReload = 1`, nil))
	if leaked {
		t.Fatal("the credential or the session cookie is readable by the page's script")
	}

	root := workspace(t)
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "ui-1", "workspace_id": "ws", "thread_id": "th", "workspace_root": root,
		"permission_profile": map[string]any{"mode": "supervised"}}, http.StatusCreated, nil)
	first := execWaiting(s, "ui-1", "call-1")
	run(t, a, "the request appears live", chromedp.WaitVisible(`article[data-status="pending"]`, chromedp.ByQuery))
	var reqID string
	var stillSame bool
	run(t, a, "read the card", chromedp.AttributeValue(`article[data-status="pending"]`, "id", &reqID, nil, chromedp.ByQuery),
		chromedp.Evaluate(`window.__noReload === 1`, &stillSame))
	if !stillSame {
		t.Fatal("the page reloaded to show the request")
	}
	reqID = strings.TrimPrefix(reqID, "req-")
	card := text(t, a, "#req-"+reqID)
	for _, want := range []string{"echo", "console-call-1", "Expires in", "Allow once", "Allow for this turn", "Deny", "Turn permissions: supervised",
		"allow_for_turn allows, until turn ui-1 ends, every later exec_command call with the same"} {
		if !strings.Contains(card, want) {
			t.Errorf("the card lacks %q:\n%s", want, card)
		}
	}
	if strings.Contains(card, consoleSecret) {
		t.Errorf("the card shows a redacted secret:\n%s", card)
	}
	if os.Getenv("UPDATE_CONSOLE_PNG") != "" {
		var png []byte
		run(t, a, "screenshot", chromedp.FullScreenshot(&png, 100))
		if err := os.WriteFile("../docs/console.png", png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case ans := <-first:
		t.Fatalf("the exec returned before anyone answered: %+v", ans)
	default:
	}
	run(t, a, "allow once", clickAnswer(`#req-`+reqID+` button[data-resolution="allow_once"]`))
	ans := waitExec(t, first)
	if res, _ := ans.body["result"].(map[string]any); ans.status != http.StatusOK || ans.body["ran"] != true || !strings.Contains(fmt.Sprint(res["stdout"]), "console-call-1") {
		t.Fatalf("the waiting exec answered %d %v, want 200 with the command run", ans.status, ans.body)
	}
	run(t, b, "the second browser sees the approval", chromedp.WaitVisible(`#req-`+reqID+`[data-status="resolved"]`, chromedp.ByQuery))
	if got := text(t, b, "#req-"+reqID+" .result"); !strings.Contains(got, "allow_once") || !strings.Contains(got, "alice") {
		t.Fatalf("second browser shows %q", got)
	}

	// Deny from the second browser; the first sees it.
	second := execWaiting(s, "ui-1", "call-2")
	run(t, b, "the second request appears", chromedp.WaitVisible(`article[data-status="pending"]`, chromedp.ByQuery),
		chromedp.AttributeValue(`article[data-status="pending"]`, "id", &reqID, nil, chromedp.ByQuery))
	reqID = strings.TrimPrefix(reqID, "req-")
	// With the keyboard: focus the button and press Enter.
	run(t, b, "deny", chromedp.Focus(`#req-`+reqID+` button[data-resolution="deny"]`, chromedp.ByQuery), chromedp.KeyEvent("\r"))
	ans = waitExec(t, second)
	if ans.body["ran"] == true || ans.body["decision"] != "deny" {
		t.Fatalf("the denied exec answered %d %v", ans.status, ans.body)
	}
	run(t, a, "the first browser sees the denial", chromedp.WaitVisible(`#req-`+reqID+`[data-status="resolved"]`, chromedp.ByQuery))
	if got := text(t, a, "#req-"+reqID+" .result"); !strings.Contains(got, "deny") {
		t.Fatalf("first browser shows %q", got)
	}

	// Turns, a turn's snapshot and timeline, and (admin) the audit page.
	run(t, a, "turns", chromedp.Navigate(s.URL+"/ui/#/turns"), chromedp.WaitVisible(`#turns a[href="#/turn/ui-1"]`, chromedp.ByQuery),
		chromedp.Click(`#turns a[href="#/turn/ui-1"]`, chromedp.ByQuery), chromedp.WaitVisible(`a[href="#/audit/ui-1"]`, chromedp.ByQuery))
	if page := text(t, a, "#view"); !strings.Contains(page, "Security snapshot") || !strings.Contains(page, "Timeline") || !strings.Contains(page, "supervised") ||
		strings.Contains(page, consoleSecret) {
		t.Fatalf("turn page:\n%s", page)
	}
	c := browser(t)
	signIn(t, c, s, s.credential("audrey", "auditor"))
	run(t, c, "audit", chromedp.WaitVisible("#nav", chromedp.ByID), chromedp.Navigate(s.URL+"/ui/#/audit/ui-1"), chromedp.WaitVisible("#chain.ok", chromedp.ByQuery))
	if got := text(t, c, "#chain"); !strings.Contains(got, "Hash chain intact") {
		t.Fatalf("chain check shows %q", got)
	}
	if page := text(t, c, "#view"); strings.Contains(page, consoleSecret) || !strings.Contains(page, "shell_command") {
		t.Fatalf("audit page:\n%s", page)
	}
	var href string
	run(t, c, "download link", chromedp.AttributeValue("#download", "href", &href, nil, chromedp.ByID))
	if !strings.HasPrefix(href, "blob:") {
		t.Fatalf("download link %q", href)
	}

	// The connection drops: the console says so.
	s.Kill()
	run(t, a, "reconnecting is shown", chromedp.WaitVisible(`#conn[data-state="reconnecting"]`, chromedp.ByQuery))
}

// TestConsoleRefusals: a wrong credential and a runtime credential cannot
// sign in (an approver can: the control); a cross-site form POST does not
// answer an approval; API calls by session need the session cookie and, to
// change state, the CSRF token, from the console's own origin.
func TestConsoleRefusals(t *testing.T) {
	s := StartServer(t, "")
	approver, runtime := s.credential("alice", "approver"), s.credential("agent", "runtime")
	ctx := browser(t)
	for _, c := range []struct{ token, want string }{{"tsk_wrong", "not valid"}, {runtime, "runtime credential cannot sign in"}} {
		signIn(t, ctx, s, c.token)
		run(t, ctx, "refusal shown", chromedp.WaitVisible(`#signin-error`, chromedp.ByID), chromedp.Poll(`document.getElementById("signin-error").textContent !== ""`, nil))
		if got := text(t, ctx, "#signin-error"); !strings.Contains(got, c.want) {
			t.Fatalf("sign-in error %q, want %q", got, c.want)
		}
		var nav bool
		run(t, ctx, "nav hidden", chromedp.Evaluate(`document.getElementById("nav").hidden`, &nav))
		if !nav {
			t.Fatal("signed in with a refused credential")
		}
	}
	signIn(t, ctx, s, approver)
	run(t, ctx, "the approver signs in", chromedp.WaitVisible("#nav", chromedp.ByID))

	root := workspace(t)
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "ui-csrf", "workspace_id": "ws", "thread_id": "th", "workspace_root": root,
		"permission_profile": map[string]any{"mode": "supervised"}}, http.StatusCreated, nil)
	var dec struct {
		Request struct {
			RequestID string `json:"request_id"`
		} `json:"request"`
	}
	s.JSON("POST", "/v1/turns/ui-csrf/exec", map[string]any{"tool_call_id": "c1", "argv": []string{"true"}}, http.StatusAccepted, &dec)
	rid := dec.Request.RequestID

	// Another site (localhost is a different site from 127.0.0.1) posts a
	// form at the approval while the approver is signed in.
	target := s.URL + "/v1/approvals/" + rid + "/respond"
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `<html><body><form id="f" method="POST" enctype="text/plain" action="%s"><input name='{"resolution":"allow_once","x":"' value='"}'></form>
<script>document.getElementById("f").submit()</script></body></html>`, target)
	}))
	defer evil.Close()
	evilURL := strings.Replace(evil.URL, "127.0.0.1", "localhost", 1)
	var body string
	run(t, ctx, "cross-site form POST", chromedp.Navigate(evilURL), chromedp.WaitReady("body", chromedp.ByQuery),
		chromedp.Poll(`location.href.includes("/respond")`, nil), chromedp.Text("body", &body, chromedp.ByQuery))
	if !strings.Contains(body, "unauthorized") && !strings.Contains(body, "csrf_refused") {
		t.Fatalf("the cross-site POST answered %q", body)
	}
	var a struct {
		Status string `json:"status"`
	}
	s.JSON("GET", "/v1/approvals/"+rid, nil, http.StatusOK, &a)
	if a.Status != "pending" {
		t.Fatalf("a cross-site form POST resolved the request: %s", a.Status)
	}

	// Over plain HTTP: the session cookie alone does not change state.
	cookie, csrf := httpSignIn(t, s, approver, http.StatusOK)
	respond := func(hdr ...string) (int, string) {
		req, _ := http.NewRequest("POST", target, strings.NewReader(`{"resolution":"deny"}`))
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var e struct {
			Error apiError `json:"error"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&e)
		return resp.StatusCode, e.Error.Code
	}
	for _, c := range []struct {
		name   string
		hdr    []string
		status int
		code   string
	}{
		{"no session cookie", []string{"X-CSRF-Token", csrf}, 401, "unauthorized"},
		{"no CSRF token", []string{"Cookie", cookie}, 403, "csrf_refused"},
		{"wrong CSRF token", []string{"Cookie", cookie, "X-CSRF-Token", csrf + "x"}, 403, "csrf_refused"},
		{"another site", []string{"Cookie", cookie, "X-CSRF-Token", csrf, "Sec-Fetch-Site", "cross-site"}, 403, "csrf_refused"},
		{"another origin", []string{"Cookie", cookie, "X-CSRF-Token", csrf, "Origin", "http://evil.example"}, 403, "csrf_refused"},
		{"a forged session", []string{"Cookie", "turnstile_session=forged", "X-CSRF-Token", csrf}, 401, "unauthorized"},
		{"the console, properly", []string{"Cookie", cookie, "X-CSRF-Token", csrf, "Origin", s.URL, "Sec-Fetch-Site", "same-origin"}, 200, ""},
	} {
		if st, code := respond(c.hdr...); st != c.status || code != c.code {
			t.Errorf("%s: %d %q, want %d %q", c.name, st, code, c.status, c.code)
		}
	}
	// Sign-in itself: from another origin refused; a runtime credential refused.
	httpSignIn(t, s, approver, http.StatusForbidden, "Origin", "http://evil.example")
	httpSignIn(t, s, runtime, http.StatusForbidden)
	httpSignIn(t, s, "tsk_wrong", http.StatusUnauthorized)
	// Revoking the credential ends its sessions at once.
	whoami := func() int {
		req, _ := http.NewRequest("GET", s.URL+"/v1/approvals", nil)
		req.Header.Set("Cookie", cookie)
		req.Header.Set("X-CSRF-Token", csrf)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if st := whoami(); st != http.StatusOK {
		t.Fatalf("a read by session: %d", st)
	}
	s.JSON("POST", "/v1/credentials/alice/revoke", nil, http.StatusOK, nil)
	if st := whoami(); st != http.StatusUnauthorized {
		t.Fatalf("a read by the session of a revoked credential: %d, want 401", st)
	}
	// The console's pages carry a strict CSP.
	resp, err := http.Get(s.URL + "/ui/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") || strings.Contains(csp, "unsafe-inline") {
		t.Fatalf("CSP %q", csp)
	}
}

// httpSignIn posts a sign-in and returns the session cookie and CSRF token.
func httpSignIn(t *testing.T, s *Server, token string, want int, hdr ...string) (cookie, csrf string) {
	t.Helper()
	req, _ := http.NewRequest("POST", s.URL+"/ui/session", strings.NewReader(fmt.Sprintf(`{"token":%q}`, token)))
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		t.Fatalf("sign-in with %v: %d, want %d", hdr, resp.StatusCode, want)
	}
	var info struct {
		CSRF string `json:"csrf_token"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&info)
	for _, c := range resp.Cookies() {
		if c.Name == "turnstile_session" {
			if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode {
				t.Fatalf("session cookie %+v is not HttpOnly SameSite=Strict", c)
			}
			cookie = c.Name + "=" + c.Value
		}
	}
	return cookie, info.CSRF
}

// TestConsoleReconnectsWithLastEventID puts a proxy between the browser
// and the server, cuts the event stream and holds the reconnection: the
// console shows "reconnecting", a request opened meanwhile appears once the
// stream is back, and the browser resumed with Last-Event-ID.
func TestConsoleReconnectsWithLastEventID(t *testing.T) {
	s := StartServer(t, "")
	approver := s.credential("alice", "approver")
	target, _ := url.Parse(s.URL)
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.FlushInterval = -1
	var (
		mu      sync.Mutex
		cut     context.CancelFunc
		lastIDs []string
		held    = make(chan struct{})
		holding atomic.Bool
	)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/events" {
			rp.ServeHTTP(w, r)
			return
		}
		if holding.Load() {
			<-held
		}
		ctx, cancel := context.WithCancel(r.Context())
		mu.Lock()
		cut, lastIDs = cancel, append(lastIDs, r.Header.Get("Last-Event-ID"))
		mu.Unlock()
		rp.ServeHTTP(w, r.WithContext(ctx))
	}))
	// Cleanups run last-in first-out: the browser closes before the proxy.
	t.Cleanup(func() { proxy.CloseClientConnections(); proxy.Close() })
	via := &Server{URL: proxy.URL}
	ctx := browser(t)
	signIn(t, ctx, via, approver)
	run(t, ctx, "live", chromedp.WaitVisible(`#conn[data-state="live"]`, chromedp.ByQuery))
	root := workspace(t)
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "ui-r", "workspace_id": "ws", "thread_id": "th", "workspace_root": root,
		"permission_profile": map[string]any{"mode": "supervised"}}, http.StatusCreated, nil)
	s.JSON("POST", "/v1/turns/ui-r/exec", map[string]any{"tool_call_id": "r1", "argv": []string{"true"}}, http.StatusAccepted, nil)
	run(t, ctx, "first request", chromedp.WaitVisible(`article[data-status="pending"]`, chromedp.ByQuery))

	holding.Store(true)
	mu.Lock()
	cut()
	mu.Unlock()
	run(t, ctx, "reconnecting is shown", chromedp.WaitVisible(`#conn[data-state="reconnecting"]`, chromedp.ByQuery))
	s.JSON("POST", "/v1/turns/ui-r/exec", map[string]any{"tool_call_id": "r2", "argv": []string{"true"}}, http.StatusAccepted, nil)
	close(held)
	run(t, ctx, "live again", chromedp.WaitVisible(`#conn[data-state="live"]`, chromedp.ByQuery),
		chromedp.Poll(`document.querySelectorAll('article[data-status="pending"]').length === 2`, nil))
	mu.Lock()
	defer mu.Unlock()
	if len(lastIDs) < 2 || lastIDs[0] != "" || lastIDs[len(lastIDs)-1] == "" {
		t.Fatalf("Last-Event-ID of the stream's connections: %q, want the reconnection to resume", lastIDs)
	}
}

// TestConsoleAcrossInstances: two instances share one EventStoreDB; a
// console on each. A request opened through A appears on B's console, and
// an answer given in A's console shows at once in B's (SSE from the store).
func TestConsoleAcrossInstances(t *testing.T) {
	p := miStartPair(t)
	approver := p.A.credential("alice", "approver")
	a, b := browser(t), browser(t)
	for _, c := range []struct {
		ctx context.Context
		s   *Server
	}{{a, p.A}, {b, p.B}} {
		signIn(t, c.ctx, c.s, approver)
		run(t, c.ctx, "live", chromedp.WaitVisible(`#conn[data-state="live"]`, chromedp.ByQuery), chromedp.WaitVisible("#pending-count", chromedp.ByID))
	}
	root := workspace(t)
	p.A.JSON("POST", "/v1/turns", map[string]any{"turn_id": "ui-mi", "workspace_id": "ws", "thread_id": "th", "workspace_root": root,
		"permission_profile": map[string]any{"mode": "supervised"}}, http.StatusCreated, nil)
	p.A.JSON("POST", "/v1/turns/ui-mi/exec", map[string]any{"tool_call_id": "m1", "argv": []string{"true"}}, http.StatusAccepted, nil)
	var id string
	run(t, b, "B's console shows the request opened through A", chromedp.WaitVisible(`article[data-status="pending"]`, chromedp.ByQuery),
		chromedp.AttributeValue(`article[data-status="pending"]`, "id", &id, nil, chromedp.ByQuery))
	run(t, a, "A's console answers", chromedp.WaitVisible("#"+id, chromedp.ByID), clickAnswer("#"+id+` button[data-resolution="allow_for_turn"]`))
	run(t, b, "B's console shows the answer", chromedp.WaitVisible("#"+id+`[data-status="resolved"]`, chromedp.ByQuery))
	if got := text(t, b, "#"+id+" .result"); !strings.Contains(got, "allow_for_turn") {
		t.Fatalf("B shows %q", got)
	}
}

// TestConsoleShowsHiddenCharacters: a request whose command holds a
// right-to-left override, an escape sequence and a zero-width space is
// shown with each written as an escape (\u{202e}, \u{1b}, \u{200b}), so
// the person deciding it reads the characters that will run, not text the
// browser reorders or hides; ordinary text (the control) is shown as it is.
func TestConsoleShowsHiddenCharacters(t *testing.T) {
	s := StartServer(t, "")
	approver := s.credential("alice", "approver")
	a := browser(t)
	signIn(t, a, s, approver)
	run(t, a, "the event stream goes live", chromedp.WaitVisible(`#conn[data-state="live"]`, chromedp.ByQuery))
	root := workspace(t)
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "ui-hidden", "workspace_id": "ws", "thread_id": "th", "workspace_root": root,
		"permission_profile": map[string]any{"mode": "supervised"}}, http.StatusCreated, nil)
	ch := make(chan execAnswer, 1)
	go func() {
		status, body := s.Do("POST", "/v1/turns/ui-hidden/exec?wait=60s", map[string]any{"tool_call_id": "hidden-1",
			"argv": []string{"echo", "invoice\u202etxt.sh", "ok\x1b[8mrm\u200b-rf", "line\nbreak", "Écrit"}})
		var out map[string]any
		_ = json.Unmarshal(body, &out)
		ch <- execAnswer{status, out}
	}()
	run(t, a, "the request appears", chromedp.WaitVisible(`article[data-status="pending"]`, chromedp.ByQuery))
	card := text(t, a, `article[data-status="pending"]`)
	for _, want := range []string{`invoice\u{202e}txt.sh`, `ok\u{1b}[8mrm\u{200b}-rf`, `line\u{a}break`, "Écrit"} {
		if !strings.Contains(card, want) {
			t.Errorf("the card lacks %q:\n%s", want, card)
		}
	}
	for _, raw := range []string{"\u202e", "\x1b", "\u200b"} {
		if strings.Contains(card, raw) {
			t.Errorf("the card shows %q raw:\n%s", raw, card)
		}
	}
	var reqID string
	run(t, a, "deny", chromedp.AttributeValue(`article[data-status="pending"]`, "id", &reqID, nil, chromedp.ByQuery))
	run(t, a, "deny", clickAnswer(`#`+reqID+` button[data-resolution="deny"]`))
	if ans := waitExec(t, ch); ans.body["ran"] == true {
		t.Fatalf("the denied exec ran: %v", ans.body)
	}
}
