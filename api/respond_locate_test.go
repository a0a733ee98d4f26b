package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"

	"turnstile/adapters/boltstore"
	"turnstile/api"
	"turnstile/domain/engine"
	"turnstile/domain/eventstore"
	"turnstile/projections"
)

// scanCounter counts the engine's reads of the whole log.
type scanCounter struct {
	eventstore.Store
	reads atomic.Int64
}

func (c *scanCounter) ReadAll(ctx context.Context, from eventstore.Position, max int) ([]eventstore.RecordedEvent, error) {
	c.reads.Add(1)
	return c.Store.ReadAll(ctx, from, max)
}

// TestRespondAfterRestartFindsTheTurnWithoutAScan: after a restart the
// engine knows no request, and an answer given without turn_id (as the
// README's walkthrough and the console give it) found its turn by reading
// the whole log (2 s over 1M events). The read models hold every open
// request: the answer is found from them, with no read of the log, and
// resolves the request. Control: an id nobody has is looked for in the log
// (the counter counts) and is not found.
func TestRespondAfterRestartFindsTheTurnWithoutAScan(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.db")
	first := startInProcessOn(t, path)
	if st, b := first.do("POST", "/v1/turns", map[string]any{"turn_id": "t1", "workspace_id": "ws1", "thread_id": "th1",
		"permission_profile": map[string]any{"mode": "supervised"}, "workspace_root": t.TempDir()}); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, b)
	}
	st, b := first.do("POST", "/v1/turns/t1/decisions", map[string]any{"tool_call_id": "c1", "tool_name": "exec_command",
		"arguments": map[string]any{"cmd": []string{"go", "test"}}})
	var ask struct {
		Request struct {
			RequestID string `json:"request_id"`
		} `json:"request"`
	}
	if st != http.StatusOK || json.Unmarshal(b, &ask) != nil || ask.Request.RequestID == "" {
		t.Fatalf("ask: %d %s", st, b)
	}
	first.stop()

	// The restart: a new engine (its request index empty) over the same
	// store, counted; the read models rebuilt from the log.
	store, err := boltstore.Open(path, boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	counted := &scanCounter{Store: store}
	proj := projections.New()
	srv := api.New(api.Config{Engine: engine.New(counted, engine.Config{}), Projector: proj, Store: store, Token: first.token})
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() { done <- proj.Follow(ctx, store, func() { srv.SetReady(); close(ready) }) }()
	<-ready
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { srv.Drain(); hs.Close(); cancel(); <-done; store.Close() })
	second := &inProcess{t: t, url: hs.URL, token: first.token, stop: func() {}}

	scans := counted.reads.Load()
	st, b = second.do("POST", "/v1/approvals/"+ask.Request.RequestID+"/respond", map[string]any{"resolution": "allow_once"})
	var res struct {
		Resolution string `json:"resolution"`
		Replayed   bool   `json:"replayed"`
	}
	if st != http.StatusOK || json.Unmarshal(b, &res) != nil || res.Resolution != "allow_once" || res.Replayed {
		t.Fatalf("respond after the restart: %d %s", st, b)
	}
	if n := counted.reads.Load() - scans; n != 0 {
		t.Fatalf("the answer read the whole log %d times to find its turn", n)
	}
	// Control: an unknown id is looked for in the log, and not found.
	st, b = second.do("POST", "/v1/approvals/00000000-0000-5000-8000-000000000000/respond", map[string]any{"resolution": "allow_once"})
	if st != http.StatusNotFound {
		t.Fatalf("respond to an unknown request: %d %s", st, b)
	}
	if counted.reads.Load() == scans {
		t.Fatal("control: the unknown request was not looked for in the log (the counter counts nothing)")
	}
}
