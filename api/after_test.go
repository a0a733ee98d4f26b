package api_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"turnstile/adapters/boltstore"
	"turnstile/api"
	"turnstile/domain/engine"
	"turnstile/domain/eventcodec"
	"turnstile/domain/eventstore"
	"turnstile/projections"
	"turnstile/sandbox"
)

// gate holds the read models back: the follower applies an event only once
// the gate is open up to its position (the test hook that pauses the
// projector, instead of a sleep that hopes it lags).
type gate struct {
	mu   sync.Mutex
	upTo eventstore.Position
	ch   chan struct{} // closed and replaced when upTo moves
}

func (g *gate) open(p eventstore.Position) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.upTo.Less(p) {
		g.upTo = p
	}
	close(g.ch)
	g.ch = make(chan struct{})
}

func (g *gate) wait(ctx context.Context, p eventstore.Position) error {
	for {
		g.mu.Lock()
		ok, ch := !g.upTo.Less(p), g.ch
		g.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// startGated serves an api.Server whose read models follow the store only
// as far as the returned gate allows; commands do not wait for them.
// gated is a server from startGated.
type gated struct {
	*inProcess
	g     *gate
	proj  *projections.Projector
	root  string // a workspace root
	store *boltstore.Store
}

func startGated(t *testing.T) *gated { return startGatedWith(t, nil) }

// startGatedWith is startGated with the config changed by with.
func startGatedWith(t *testing.T, with func(*api.Config)) *gated {
	t.Helper()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "events.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	proj := projections.New()
	token := "in-process-test-token-0123456789"
	cfg := api.Config{Engine: engine.New(st, engine.Config{}), Projector: proj, Store: st, Token: token,
		Explainer: sandbox.Explainer{}, AfterWait: 300 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if with != nil {
		with(&cfg)
	}
	srv := api.New(cfg)
	srv.SetReady()
	g := &gate{ch: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		sub, err := st.Subscribe(ctx, eventstore.Start, "turn-")
		if err != nil {
			return
		}
		defer sub.Close()
		for {
			m, err := sub.Recv(ctx)
			if err != nil {
				return
			}
			if m.Event == nil {
				continue
			}
			e, err := eventcodec.DecodeUnhashed(m.Event)
			if err != nil {
				t.Errorf("decode: %v", err)
				return
			}
			if g.wait(ctx, e.Position) != nil {
				return
			}
			if err := proj.Apply(&e); err != nil {
				t.Errorf("apply: %v", err)
				return
			}
		}
	}()
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		srv.Drain()
		hs.Close()
		cancel()
		<-done
		st.Close()
	})
	return &gated{inProcess: &inProcess{t: t, url: hs.URL, token: token}, g: g, proj: proj, root: t.TempDir(), store: st}
}

// TestAfterReadsYourWrites: with the read models held back, a read right
// after a decision does not see it (the control: the hold works), and the
// same read with ?after=<the decision's position> always does, once the
// read models are let through. A hundred times.
func TestAfterReadsYourWrites(t *testing.T) {
	s := startGated(t)
	g, root := s.g, s.root
	var started struct {
		Position string `json:"position"`
	}
	st, b := s.do("POST", "/v1/turns", map[string]any{"turn_id": "t", "workspace_id": "ws", "workspace_root": root})
	if st != http.StatusCreated || json.Unmarshal(b, &started) != nil || started.Position == "" {
		t.Fatalf("start: %d %s", st, b)
	}
	p, _ := eventstore.ParsePosition(started.Position)
	g.open(p)
	type audit struct {
		Rows []struct {
			ToolCallID string `json:"tool_call_id"`
		} `json:"rows"`
	}
	has := func(b []byte, call string) bool {
		var a audit
		if err := json.Unmarshal(b, &a); err != nil {
			t.Fatalf("audit: %v: %s", err, b)
		}
		for _, r := range a.Rows {
			if r.ToolCallID == call {
				return true
			}
		}
		return false
	}
	for i := range 100 {
		call := "c" + strconv.Itoa(i)
		st, b := s.do("POST", "/v1/turns/t/decisions", map[string]any{"tool_call_id": call, "tool_name": "exec_command", "arguments": map[string]any{"cmd": "make"}})
		var d api.DecisionResponse
		if st != http.StatusOK || json.Unmarshal(b, &d) != nil || d.Position == "" {
			t.Fatalf("decide %s: %d %s", call, st, b)
		}
		if st, b := s.do("GET", "/v1/turns/t/audit", nil); st != http.StatusOK || has(b, call) {
			t.Fatalf("the read models were not held back (control): %d %s", st, b)
		}
		got := make(chan []byte, 1)
		go func() {
			st, b := s.do("GET", "/v1/turns/t/audit?after="+d.Position, nil)
			if st != http.StatusOK {
				t.Errorf("audit?after=%s: %d %s", d.Position, st, b)
			}
			got <- b
		}()
		pos, err := eventstore.ParsePosition(d.Position)
		if err != nil {
			t.Fatal(err)
		}
		g.open(pos)
		if b := <-got; !t.Failed() && !has(b, call) {
			t.Fatalf("audit?after=%s does not show decision %s: %s", d.Position, call, b)
		}
	}
}

// TestAfterOnEveryReadModelEndpoint: every read served from the read models
// takes ?after= (list turns: after_position, its after being a paging
// cursor); a malformed one is 400 naming the parameter; one beyond the end
// of the log waits, then answers 504 read_model_lagging, and the server
// serves on.
func TestAfterOnEveryReadModelEndpoint(t *testing.T) {
	s := startGated(t)
	g, proj, root := s.g, s.proj, s.root
	st, b := s.do("POST", "/v1/turns", map[string]any{"turn_id": "t", "workspace_id": "ws", "workspace_root": root,
		"permission_profile": map[string]string{"mode": "supervised"}})
	if st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, b)
	}
	var d api.DecisionResponse
	st, b = s.do("POST", "/v1/turns/t/decisions", map[string]any{"tool_call_id": "c1", "tool_name": "exec_command", "arguments": map[string]any{"cmd": "make"}})
	if st != http.StatusOK || json.Unmarshal(b, &d) != nil || d.Request == nil {
		t.Fatalf("decide: %d %s", st, b)
	}
	pos, _ := eventstore.ParsePosition(d.Position)
	g.open(pos)
	reads := map[string]string{
		"/v1/turns/t":                          "after",
		"/v1/turns":                            "after_position",
		"/v1/turns/t/timeline":                 "after",
		"/v1/turns/t/audit":                    "after",
		"/v1/turns/t/explain?path=/tmp":        "after",
		"/v1/approvals":                        "after",
		"/v1/approvals/" + d.Request.RequestID: "after",
	}
	for path, param := range reads {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		if st, b := s.do("GET", path+sep+param+"="+d.Position, nil); st != http.StatusOK || !strings.Contains(string(b), "t") {
			t.Errorf("%s with %s=%s: %d %s", path, param, d.Position, st, b)
		}
		for _, bad := range []string{"abc", "-1", "1-", "１"} {
			st, b := s.do("GET", path+sep+param+"="+bad, nil)
			var e struct {
				Error struct {
					Code    string         `json:"code"`
					Details map[string]any `json:"details"`
				} `json:"error"`
			}
			if st != http.StatusBadRequest || json.Unmarshal(b, &e) != nil || e.Error.Details["field"] != param {
				t.Errorf("%s with %s=%q: %d %s (want 400 naming %s)", path, param, bad, st, b, param)
			}
		}
	}
	beyond := strconv.FormatUint(pos.Commit+1000, 10)
	st, b = s.do("GET", "/v1/turns/t/audit?after="+beyond, nil)
	if st != http.StatusGatewayTimeout || !strings.Contains(string(b), `"read_model_lagging"`) || !strings.Contains(string(b), `"position":"`+proj.Position().String()+`"`) {
		t.Fatalf("after beyond the log: %d %s", st, b)
	}
	if st, b := s.do("GET", "/v1/turns/t/audit", nil); st != http.StatusOK {
		t.Fatalf("a read after the timeout: %d %s", st, b)
	}
}
