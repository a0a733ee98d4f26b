package egress

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"turnstile/adapters/boltstore"
	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
)

// keptJudge is the real EngineJudge; it notes the summaries its Record
// actually appended to the turn.
type keptJudge struct {
	*EngineJudge
	mu   sync.Mutex
	kept []turn.EgressTraffic
}

func (j *keptJudge) Record(ctx context.Context, turnID, id string, t turn.EgressTraffic) error {
	err := j.EngineJudge.Record(ctx, turnID, id, t)
	var q *domain.QuotaError // recorded, the principal past its quota
	if err == nil || errors.As(err, &q) {
		j.mu.Lock()
		j.kept = append(j.kept, t)
		j.mu.Unlock()
	}
	return err
}

func (j *keptJudge) bytesUp() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	var n int64
	for _, t := range j.kept {
		n += t.BytesUp
	}
	return n
}

// listenOn serves fn's connections on addr (a port of the review's range).
func listenOn(t *testing.T, addr string, fn func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp4", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go fn(c)
		}
	}()
	return ln.Addr().String()
}

// TestAttack23TrafficHiddenPastQuota: the twenty-first review's fix records
// a principal's traffic summaries as that principal's, "within its byte
// quota (past it a summary is dropped)". The principal is the agent, and
// its own calls fill its quota (open_turn_bytes_per_credential) whenever
// it likes. Past it, its new decisions are refused, but a tunnel it holds
// open keeps carrying, and so does a new connection to an origin already
// in its batch (no decision is made for it): every byte they carry is
// dropped from the record, so the agent moves data that no egress.traffic
// event ever shows, in a log that exists to show it. Wanted: a summary is
// an audit record of what was carried, recorded whatever the quota (or,
// past the quota, the principal's open connections closed and its batch
// dropped, so nothing more is carried unrecorded). Control: under the
// quota, the tunnel's bytes are recorded as the agent's.
func TestAttack23TrafficHiddenPastQuota(t *testing.T) {
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
	agent := domain.Actor{Name: "agent", Role: domain.RoleRuntime}
	var over atomic.Bool // the agent's own calls filled its byte quota
	j := &keptJudge{EngineJudge: &EngineJudge{Engine: eng, Now: time.Now, Poll: time.Millisecond, Admit: func(_ string, by domain.Actor) error {
		if over.Load() && by.Name == agent.Name {
			return &domain.QuotaError{Quota: domain.QuotaHeldBytes, Limit: 1, Of: by.Name}
		}
		return nil
	}}}
	p := NewProxy(j, &mapResolver{})
	p.FlushEvery = time.Hour // the test flushes itself
	closed := make(chan struct{}, 4)
	p.accounted = func(string) { closed <- struct{}{} }
	echo := listenOn(t, "127.0.0.1:0", func(c net.Conn) { io.Copy(c, c); c.Close() })
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := p.Server(p.Handler(), 10*time.Second)
	go srv.Serve(p.Limit(ln, true))
	t.Cleanup(func() { srv.Close() })
	u, _ := url.Parse(p.ProxyURLFor(ln.Addr().String(), "t", agent, "cred-a"))
	cred, _ := u.User.Password()

	carry := func(n int) {
		t.Helper()
		c, br, st := dialConnect(t, ln.Addr().String(), "t", cred, echo)
		if !strings.HasPrefix(st, "200") {
			t.Fatalf("CONNECT: %s", st)
		}
		msg := strings.Repeat("\x01", n-1) // no method: a tunnel that begins with one (visible bytes) filling its first read is refused (tunnelhttp.go)
		if got, err := echoOnce(c, br, msg); err != nil || got != msg+"\n" {
			t.Fatalf("echo: %q %v", got, err)
		}
		c.Close()
		<-closed
		p.Flush("t")
	}
	carry(100)
	if up := j.bytesUp(); up != 100 {
		t.Fatalf("control: the agent's tunnel carried 100 bytes up, recorded %d", up)
	}
	// Past its quota: a new decision is refused…
	over.Store(true)
	if v, _ := j.Decide(WithActor(context.Background(), agent), "t", "https://fresh.test:443", http.MethodConnect); v.Allow {
		t.Fatalf("control: a decision of the agent past its quota was allowed: %+v", v)
	}
	// …but the batched origin still connects, and what it carries is not
	// recorded.
	carry(100000)
	if up := j.bytesUp(); up != 100100 {
		t.Errorf("the agent, past its byte quota, carried 100,000 more bytes through the proxy (a connection to an origin of its batch); recorded in all: %d bytes up, want 100100: its egress.traffic summaries were dropped", up)
	}
	// Once that summary is recorded past the quota, the agent's batch is
	// dropped: its next connection is decided, and refused.
	if _, _, st := dialConnect(t, ln.Addr().String(), "t", cred, echo); !strings.Contains(st, "quota_exceeded") {
		t.Errorf("after a summary past its quota, the agent's next connection to its batched origin: %s, want 403 quota_exceeded", st)
	}
}
