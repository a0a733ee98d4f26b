package tests

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestAttack24ConsoleReloadsEverythingPerRequest: the approval console
// answers every turn/permission/request/opened event by fetching the whole
// pending list again (GET /v1/approvals?status=pending, one unpaged answer)
// and then GET /v1/turns/{id} for every turn that list names (api/ui/app.js,
// loadApprovals), with nothing coalesced. So each request the agent opens
// costs the server, for every open console, an encoding of all its pending
// requests and of every turn view that holds one: the cost of P requests
// in T turns is P·(P + T) views, not P + T. The quotas multiply rather
// than bound it: a runtime credential may hold 1,024 open turns of 256
// pending requests each, 262,144 requests shown to people (each turn view
// up to the 64 KiB a profile's lists hold), so the agent opening requests
// at the rate decisions are appended keeps the server encoding what it
// asked before, once per console, and the console, which redraws every
// card each time, unusable for the people who answer the other
// credentials' requests. Here 48 requests in 12 turns make the one console
// fetch 48 lists and 217 turn views, 4 MB, 21 times what showing them once
// takes (64 in 16: 40 times; a turn view is some 15 KB, its snapshot).
// Wanted: the console applies an opened event's request (the event carries
// it) or coalesces the reloads it triggers, and fetches a turn's view once
// (and the pending list pages); and a bound per credential on its pending
// requests in all its turns, not only per turn.
// Control: the console shows every request the agent opened.
func TestAttack24ConsoleReloadsEverythingPerRequest(t *testing.T) {
	s := StartServer(t, "")
	person := s.credential("person", "approver")
	agent := roAs(s, s.credential("agent", "runtime"))
	target, _ := url.Parse(s.URL)
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.FlushInterval = -1
	var mu sync.Mutex
	counting := false
	sent := map[string][2]int{} // route → requests, bytes of the answers
	proxy := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		route := ""
		switch {
		case r.Method == "GET" && r.URL.Path == "/v1/approvals":
			route = "list"
		case r.Method == "GET" && strings.HasPrefix(r.URL.Path, "/v1/turns/") && strings.Count(r.URL.Path, "/") == 3:
			route = "turn"
		}
		cw := &countingWriter{ResponseWriter: w}
		rp.ServeHTTP(cw, r)
		mu.Lock()
		if counting && route != "" {
			c := sent[route]
			sent[route] = [2]int{c[0] + 1, c[1] + cw.n}
		}
		mu.Unlock()
	}))
	proxy.Start()
	t.Cleanup(func() { proxy.CloseClientConnections(); proxy.Close() })
	ctx := browser(t)
	signIn(t, ctx, &Server{URL: proxy.URL}, person)
	run(t, ctx, "live", chromedp.WaitVisible(`#conn[data-state="live"]`, chromedp.ByQuery), chromedp.WaitVisible("#pending-count", chromedp.ByID))
	mu.Lock()
	counting = true
	mu.Unlock()
	const turns, each = 12, 4
	root := workspace(t)
	for i := range turns {
		id := fmt.Sprintf("flood-%02d", i)
		agent.startTurn(id, "ws", "supervised", root)
		for j := range each {
			if d := agent.decide(id, fmt.Sprintf("c%d", j), "exec_command", map[string]any{"cmd": fmt.Sprintf("make target-%d", j)}); d.Decision != "ask" {
				t.Fatalf("%s c%d: %s, want ask", id, j, d.Decision)
			}
		}
	}
	want := fmt.Sprintf("%d pending", turns*each)
	waitUntil(t, "the console showing every request", func() (bool, string) {
		var shown string
		run(t, ctx, "read the count", chromedp.Evaluate(`(document.getElementById("pending-count") || {}).textContent || ""`, &shown))
		return shown == want, shown
	})
	mu.Lock()
	got := map[string][2]int{"list": sent["list"], "turn": sent["turn"]}
	mu.Unlock()
	// Showing them once: the pending list, and each turn's view.
	_, list := roAs(s, person).Request("GET", "/v1/approvals?status=pending", nil)
	once := len(list)
	for i := range turns {
		_, v := roAs(s, person).Request("GET", fmt.Sprintf("/v1/turns/flood-%02d", i), nil)
		once += len(v)
	}
	total := got["list"][1] + got["turn"][1]
	if total > 4*once {
		t.Errorf("for %d requests the agent opened in %d turns, the console fetched %d pending lists and %d turn views, %d bytes, %.1f times the %d bytes of showing them once; want it linear in what the agent opened", turns*each, turns, got["list"][0], got["turn"][0], total, float64(total)/float64(once), once)
	}
}

// countingWriter counts the bytes of an answer's body.
type countingWriter struct {
	http.ResponseWriter
	n int
}

func (w *countingWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.n += n
	return n, err
}

func (w *countingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
