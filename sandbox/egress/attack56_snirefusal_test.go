package egress

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"turnstile/adapters/boltstore"
	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
)

// TestAttack56FrontingAttemptRecordedAsCarried (fifty-sixth review, low):
// a tunnel whose ClientHello names another server than its CONNECT host is
// closed before anything reaches the address (sni.go; README "The host
// judged is the host asked"). The turn's record of it is the opposite of
// what happened: the CONNECT's decision_allowed for the allowed origin,
// and, once the window is flushed, an egress.traffic summary counting it
// as one connection carried to that origin; no decision_denied, no
// refusal code, nothing naming the server the hello asked for.
// turn.EgressTraffic promises "a refused connection is its own
// decision_denied event"; the SNI refusal happens in connect() after
// p.decide has recorded the allow, closes the tunnel with t.close(), and
// serve's deferred p.account(t) then counts it like any finished tunnel
// (proxy.go serve, connect). A person reading the audit after an agent
// tried to front a forbidden site through an allowed CDN address sees
// only allowed traffic.
//
// Control: a tunnel whose hello names no server (a TLS client dialing an
// IP literal) completes its handshake through the proxy. Attack: a hello
// naming other.test is refused, and the turn must record a denial for it
// (decision_denied); today it records none, and counts it as carried.
func TestAttack56FrontingAttemptRecordedAsCarried(t *testing.T) {
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "events.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	eng := engine.New(st, engine.Config{})
	if _, err := eng.Execute(context.Background(), "t", &turn.StartTurn{TurnID: "t", WorkspaceID: "ws", ThreadID: "th",
		Inputs: turn.Inputs{WorkspaceRoot: t.TempDir()}}); err != nil {
		t.Fatal(err)
	}
	j := &keptJudge{EngineJudge: &EngineJudge{Engine: eng, Now: time.Now, Poll: time.Millisecond}}
	p := NewProxy(j, &mapResolver{})
	p.FlushEvery = time.Hour // flushed by hand below
	accounted := make(chan struct{}, 4)
	p.accounted = func(string) { accounted <- struct{}{} }
	up := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(up.Close)
	target := up.Listener.Addr().String()
	addr := startProxy(t, p)

	handshake := func(serverName string) error {
		c, _, st := dialConnect(t, addr, "t", p.Credential("t"), target)
		if !strings.HasPrefix(st, "200") {
			t.Fatalf("CONNECT %s: %s", target, st)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		tc := tls.Client(c, &tls.Config{ServerName: serverName, InsecureSkipVerify: true})
		defer tc.Close()
		return tc.Handshake()
	}
	denials := func() (n int) {
		eng.View(context.Background(), "t", func(s *turn.State) error {
			for _, c := range s.Calls {
				if c.Denial != nil || c.Decision.Behavior == domain.BehaviorDeny {
					n++
				}
			}
			return nil
		})
		return n
	}

	// Control: no server name (an IP literal), the handshake completes.
	if err := handshake(""); err != nil {
		t.Fatalf("control: a TLS handshake without a server name through the tunnel: %v", err)
	}
	<-accounted
	if n := denials(); n != 0 {
		t.Fatalf("control: %d denials recorded", n)
	}

	// Attack: a hello naming other.test.
	if err := handshake("other.test"); err == nil {
		t.Fatalf("a ClientHello naming other.test through a tunnel to %s completed its handshake: the SNI check did not run", target)
	}
	<-accounted
	p.Flush("t")
	j.mu.Lock()
	var carried int
	for _, tr := range j.kept {
		carried += tr.Connections
	}
	j.mu.Unlock()
	if n := denials(); n == 0 {
		t.Errorf("a tunnel refused for its ClientHello naming other.test left no denial on the turn; the summary counts %d connections carried to https://%s, the refused one among them", carried, target)
	}
}
