package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"turnstile/adapters/boltstore"
	"turnstile/api"
	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/eventstore"
	"turnstile/projections"
)

// startHookServer serves a store in a temp dir with one Claude Code
// project (full_access) rooted at ws, its read models following the store;
// everything stops when the test ends.
func startHookServer(t *testing.T, ws string) (*httptest.Server, eventstore.Store, *projections.Projector) {
	t.Helper()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "events.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cfg := &domain.ClaudeCodeConfig{Projects: []domain.ClaudeCodeProject{{Root: ws, WorkspaceID: "w", Mode: domain.ModeFullAccess}}}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	proj := projections.New()
	srv := api.New(api.Config{Engine: engine.New(st, engine.Config{}), Projector: proj, Store: st, Token: "hook-test-token-0123456789", ClaudeCode: cfg})
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() { done <- proj.Follow(ctx, st, func() { srv.SetReady(); close(ready) }) }()
	<-ready
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { srv.Drain(); hs.Close(); cancel(); <-done })
	return hs, st, proj
}

// TestHookConcurrentFirstCalls: Claude Code runs parallel tool calls'
// hooks at once; with no turn open, every one of them races to start the
// session's first turn. One turn results, every call is decided in it
// (run under -race in CI).
func TestHookConcurrentFirstCalls(t *testing.T) {
	ws := t.TempDir()
	hs, st, proj := startHookServer(t, ws)

	post := func(body map[string]any) (int, string) {
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", hs.URL+"/v1/hooks/claude-code", bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer hook-test-token-0123456789")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(out)
	}
	var wg sync.WaitGroup
	answers := make(chan string, 16)
	for i := range 16 {
		wg.Go(func() {
			status, body := post(map[string]any{"session_id": "s", "cwd": ws, "hook_event_name": "PreToolUse", "tool_name": "Read",
				"tool_input": map[string]any{"file_path": fmt.Sprintf("%s/f%d", ws, i)}, "tool_use_id": fmt.Sprintf("toolu_%d", i)})
			answers <- fmt.Sprintf("%d %s", status, body)
		})
	}
	wg.Wait()
	close(answers)
	for a := range answers {
		if !strings.HasPrefix(a, "200 ") || !strings.Contains(a, `"permissionDecision":"allow"`) {
			t.Errorf("a racing first call: %s", a)
		}
	}
	// Commands do not wait for the read models: they are read once they
	// hold everything the store does.
	recs, err := st.ReadAll(context.Background(), eventstore.Start, 0)
	if err != nil || len(recs) == 0 {
		t.Fatalf("the store: %d events, %v", len(recs), err)
	}
	wctx, wcancel := context.WithTimeout(context.Background(), time.Minute)
	defer wcancel()
	if err := proj.WaitFor(wctx, recs[len(recs)-1].Position); err != nil {
		t.Fatalf("the read models did not reach the store's last event: %v", err)
	}
	turns := proj.Turns(projections.TurnFilter{Limit: 10})
	if len(turns) != 1 || !strings.HasSuffix(turns[0].TurnID, ":1") {
		t.Fatalf("racing first calls started %d turns: %+v", len(turns), turns)
	}
	if n := len(proj.Audit(turns[0].TurnID, 0, 100)); n != 2+16 { // profile, snapshot, 16 decisions
		t.Fatalf("%d audit rows, want 18", n)
	}
}
