package egress

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"turnstile/domain"
)

// hookJudge is a snapJudge whose Decide runs before, when set, first: the
// moment a decision is being made (an approval request open for a person,
// say) during which the turn's snapshot may change.
type hookJudge struct {
	*snapJudge
	hmu    sync.Mutex
	before func(rawURL, method string) bool // true: done, run no more
}

func (j *hookJudge) Decide(ctx context.Context, turnID, rawURL, method string) (Verdict, error) {
	j.hmu.Lock()
	f := j.before
	j.hmu.Unlock()
	if f != nil && f(rawURL, method) {
		j.hmu.Lock()
		j.before = nil
		j.hmu.Unlock()
	}
	return j.snapJudge.Decide(ctx, turnID, rawURL, method)
}

// TestAttack2NarrowingBeforeTrackIsNeverJudged: a CONNECT is refused under
// limited by serve, which reads the snapshot once at the start of the
// request; the decision (which can wait a minute on a person) and the dial
// (CheckAddr: address rules only, no methods) follow, and connect then
// tracks the tunnel. watch re-judges a turn's tunnels only when the
// snapshot version moves (track.go: `ver == seen` → continue), and it runs
// for as long as the turn has any open connection. So a narrowing to limited
// that the watch already judged while this CONNECT was being decided is
// never applied to it: the tunnel opens and carries any method, for ever.
// The agent keeps one plain GET stream open (GET survives limited, so the
// watch keeps running at the new version) and opens its CONNECT while the
// narrowing lands (here: while its question is being decided).
// Wanted: the tunnel is refused or closed (judged against the snapshot in
// force when it is tracked). Controls: a tunnel opened before the narrowing
// is closed by it, and a CONNECT after it is refused.
func TestAttack2NarrowingBeforeTrackIsNeverJudged(t *testing.T) {
	// A plain HTTP stream that stays open (the watch keeps running).
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	stop := make(chan struct{})
	stream := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, pad("first"))
		w.(http.Flusher).Flush()
		select {
		case <-stop:
		case <-r.Context().Done():
		}
	})}
	go stream.Serve(ln)
	t.Cleanup(func() { stream.Close() })
	streamAddr := ln.Addr().String()
	echo := echoServer(t)
	echo2 := echoServer(t) // another origin: its decision is not batched with echo's

	sj := newSnapJudge()
	np := domain.NetworkPolicy{Mode: domain.NetworkRestricted, AllowLocalhost: true, AllowedDomains: []string{"=127.0.0.1"}}
	sj.set("t", np) // version 1
	lim := np
	lim.AllowedMethods = []string{"GET", "HEAD", "OPTIONS"}
	j := &hookJudge{snapJudge: sj}
	p := NewProxy(j, &mapResolver{})
	p.Recheck = 20 * time.Millisecond
	judged := make(chan int64, 64)
	p.rechecked = func(_ string, v int64) {
		select {
		case judged <- v:
		default:
		}
	}
	addr := startProxy(t, p)
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(stop) }) }) // before the proxy's Close (it waits for the stream)
	waitJudged := func(want int64) {
		t.Helper()
		for {
			select {
			case v := <-judged:
				if v >= want {
					return
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("the watch never judged version %d", want)
			}
		}
	}

	// The plain GET stream, first line read: the watch is running.
	c := proxyClient(p.ProxyURL(addr, "t"))
	c.Timeout = 0
	resp, err := c.Get("http://" + streamAddr + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if line, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil || line != pad("first") {
		t.Fatalf("stream: %q %v", line, err)
	}
	waitJudged(1)

	// Control: a tunnel opened before the narrowing.
	early, earlyBr, st := dialConnect(t, addr, "t", p.Credential("t"), echo)
	if !strings.HasPrefix(st, "200") {
		t.Fatalf("CONNECT before the narrowing (control): %s", st)
	}

	// The CONNECT under attack: while its question is decided, the person
	// narrows the turn to limited and the watch judges the new version.
	j.hmu.Lock()
	j.before = func(rawURL, method string) bool {
		if !strings.HasPrefix(rawURL, "https://") {
			return false
		}
		sj.set("t", lim) // version 2
		waitJudged(2)
		return true
	}
	j.hmu.Unlock()
	late, lateBr, st := dialConnect(t, addr, "t", p.Credential("t"), echo2)

	// Controls: the narrowing is in force.
	early.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := earlyBr.ReadString('\n'); err == nil || isTimeout(err) {
		t.Fatalf("control: the tunnel opened before the narrowing was not closed by it (%v)", err)
	}
	if _, _, st2 := dialConnect(t, addr, "t", p.Credential("t"), echo); !strings.HasPrefix(st2, "403") || !strings.Contains(st2, "method_not_allowed") {
		t.Fatalf("control: a CONNECT after the narrowing: %s, want 403 method_not_allowed", st2)
	}

	if !strings.HasPrefix(st, "200") {
		return // refused: fixed
	}
	// Give the watch 50 of its periods to close it (a fix may judge a new
	// tunnel at its next tick rather than when tracking it).
	late.SetReadDeadline(time.Now().Add(50 * p.Recheck))
	if _, err := lateBr.ReadByte(); err == nil {
		t.Fatal("unexpected data on the tunnel")
	} else if !isTimeout(err) {
		return // closed: fixed
	}
	if got, err := echoOnce(late, lateBr, "POST /upload HTTP/1.1"); err == nil {
		t.Errorf("a CONNECT decided while the turn was narrowed to limited opened and still carries %q after the watch judged the narrowing: the tunnel is never judged against the limited snapshot", strings.TrimSpace(got))
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}
