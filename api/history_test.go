package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"turnstile/adapters/boltstore"
	"turnstile/api"
	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
	"turnstile/projections"
)

// TestOldLongTurnPagedFromItsStream: a turn of more events than one page of
// the on-demand fold, evicted from memory, answers every page of its audit,
// its timeline and its view exactly as it did while held.
func TestOldLongTurnPagedFromItsStream(t *testing.T) {
	ctx := context.Background()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "events.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng, proj, _, s := serveStoreInProcess(t, st, st)

	root := t.TempDir()
	start := func(id string) {
		if _, err := eng.Execute(ctx, id, &turn.StartTurn{TurnID: id, WorkspaceID: "ws", ThreadID: "th",
			Profile: &domain.ProfileRequest{Mode: domain.ModeFullAccess}, Inputs: turn.Inputs{WorkspaceRoot: root}}); err != nil {
			t.Fatal(err)
		}
	}
	end := func(id string) {
		res, err := eng.Execute(ctx, id, &turn.EndTurn{Status: turn.StatusCompleted})
		if err != nil {
			t.Fatal(err)
		}
		if err := proj.WaitFor(ctx, res.Position); err != nil {
			t.Fatal(err)
		}
	}
	start("long")
	for i := range 1100 {
		if _, err := eng.Execute(ctx, "long", &turn.EvaluateTool{ToolCallID: fmt.Sprintf("c%d", i),
			Invocation: domain.Invocation{ToolName: "task_list"}}); err != nil {
			t.Fatal(err)
		}
	}
	end("long")
	paths := []string{"/v1/turns/long", "/v1/turns/long/timeline", "/v1/turns/long/audit", "/v1/turns/long/audit?offset=1000&limit=1000",
		"/v1/turns/long/audit?offset=1090&limit=5", "/v1/turns/long/audit?offset=5000"}
	get := func() map[string][]byte {
		out := map[string][]byte{}
		for _, p := range paths {
			code, b := s.do("GET", p, nil)
			if code != http.StatusOK {
				t.Fatalf("GET %s: %d %s", p, code, b)
			}
			out[p] = b
		}
		return out
	}
	held := get()
	var page struct{ Rows []json.RawMessage }
	if err := json.Unmarshal(held["/v1/turns/long/audit?offset=1090&limit=5"], &page); err != nil || len(page.Rows) != 5 {
		t.Fatalf("control: the held turn's page: %v %d rows", err, len(page.Rows))
	}
	start("other")
	end("other")
	if _, held, _ := proj.TurnHeld("long"); held {
		t.Fatal("the long turn is still held")
	}
	for p, b := range get() {
		if !bytes.Equal(b, held[p]) {
			t.Errorf("GET %s: folded from the stream differs from held:\n%.300s\n%.300s", p, b, held[p])
		}
	}
}

// serveStoreInProcess serves the API over st in process (a projector holding
// one recent turn, following st), closing closer after the server.
func serveStoreInProcess(t *testing.T, st eventstore.Store, closer interface{ Close() error }) (*engine.Engine, *projections.Projector, *api.Server, *inProcess) {
	eng := engine.New(st, engine.Config{})
	proj := projections.NewWith(projections.Options{RecentTurns: 1})
	srv := api.New(api.Config{Engine: eng, Projector: proj, Store: st, Token: "in-process-test-token-0123456789"})
	fctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- proj.Follow(fctx, st, srv.SetReady) }()
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { srv.Drain(); hs.Close(); cancel(); <-done; closer.Close() })
	return eng, proj, srv, &inProcess{t: t, url: hs.URL, token: "in-process-test-token-0123456789"}
}
