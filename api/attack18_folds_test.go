package api_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"turnstile/adapters/boltstore"
	"turnstile/api"
	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
	"turnstile/projections"
)

// gatedStore holds every read of its streams at a gate, counting the reads
// in flight of each and the largest page asked for.
type gatedStore struct {
	eventstore.Store
	inFlight map[string]*atomic.Int64 // by stream; set before use
	on       atomic.Bool
	maxPage  atomic.Int64
	gate     chan struct{}
}

func (g *gatedStore) ReadStream(ctx context.Context, stream string, from uint64, max int) ([]eventstore.RecordedEvent, error) {
	if n := g.inFlight[stream]; n != nil && g.on.Load() {
		n.Add(1)
		defer n.Add(-1)
		if int64(max) > g.maxPage.Load() {
			g.maxPage.Store(int64(max))
		}
		select {
		case <-g.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.Store.ReadStream(ctx, stream, from, max)
}

// TestAttack18OldTurnFoldsBounded: the agent fills a turn (each event within
// the limits, the turn within its credential's quota), ends it so that the
// read models keep only its summary, and reads it many times at once. Each
// read folds the turn's stream, and each fold held about twice the turn's
// stored size (measured: 20 reads of a 2.3 MB turn, +92 MB): a turn of the
// quota's 256 MiB read 20 times at once would hold some 10 GB. Now at most
// api.MaxFolds folds run at once and a principal folds one at a time, the
// others waiting, and a fold reads at most api.FoldPage events at a time:
// while the agent's reads wait, a person's read of another old turn takes
// the other slot. Control: every read is answered.
func TestAttack18OldTurnFoldsBounded(t *testing.T) {
	bolt, err := boltstore.Open(filepath.Join(t.TempDir(), "events.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	big, other := turn.StreamName("big"), turn.StreamName("other")
	st := &gatedStore{Store: bolt, gate: make(chan struct{}),
		inFlight: map[string]*atomic.Int64{big: new(atomic.Int64), other: new(atomic.Int64)}}
	eng, proj, srv, admin := serveStoreInProcess(t, st, bolt)
	agent := &inProcess{t: t, url: admin.url, token: admin.credential("agent", "runtime", "ws")}
	person := &inProcess{t: t, url: admin.url, token: admin.credential("person", "auditor", "ws")}

	endedTurns(t, eng, proj, t.TempDir(), 3, "big", "other", "later")

	const readers = 8
	st.on.Store(true)
	var wg sync.WaitGroup
	codes := make([]int, readers+1)
	read := func(i int, c *inProcess, id string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _ = c.do("GET", "/v1/turns/"+id, nil)
		}()
	}
	// Every reader is either reading a stream (held at the gate) or
	// waiting for a slot; then the reads in flight are the slots. The
	// person reads once every one of the agent's reads has arrived.
	arrived := func() int64 { return st.inFlight[big].Load() + st.inFlight[other].Load() + api.FoldsWaiting(srv) }
	waitArrived := func(n int64) {
		deadline := time.Now().Add(30 * time.Second)
		for arrived() < n {
			if time.Now().After(deadline) {
				t.Fatalf("the readers did not arrive: %d of %d", arrived(), n)
			}
			time.Sleep(time.Millisecond) // polled: the arrivals have no event to wait on
		}
	}
	for i := range readers {
		read(i, agent, "big")
	}
	waitArrived(readers)
	read(readers, person, "other")
	waitArrived(readers + 1)
	if n, m := st.inFlight[big].Load(), st.inFlight[other].Load(); n != 1 || m != 1 {
		t.Errorf("the agent's reads fold %d at once and the person's %d, want 1 and 1 (of %d slots; waiting: %d)", n, m, api.MaxFolds, api.FoldsWaiting(srv))
	}
	close(st.gate)
	wg.Wait()
	for i, c := range codes {
		if c != http.StatusOK {
			t.Errorf("control: read %d answered %d", i, c)
		}
	}
	if p := st.maxPage.Load(); p > api.FoldPage || p == 0 {
		t.Errorf("a fold asked for %d events at a time, want at most %d", p, api.FoldPage)
	}
	if w := api.FoldsWaiting(srv); w != 0 {
		t.Errorf("%d still waiting after every read was answered", w)
	}
}

// TestFoldSlotsBoundAll: past one principal's slot, all principals share
// api.MaxFolds slots; each slot is given back (the control: a fold after
// them all runs at once).
func TestFoldSlotsBoundAll(t *testing.T) {
	f := api.NewFoldSlots()
	ctx := context.Background()
	var releases []func()
	for i := range api.MaxFolds {
		r, err := api.AcquireFold(f, ctx, fmt.Sprintf("p%d", i))
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, r)
	}
	short, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := api.AcquireFold(f, short, "another"); err == nil {
		t.Fatalf("a principal got a slot with all %d held by others", api.MaxFolds)
	}
	for _, r := range releases {
		r()
	}
	r, err := api.AcquireFold(f, ctx, "another")
	if err != nil {
		t.Fatalf("control: no slot once all were given back: %v", err)
	}
	r()
}

// endedTurns starts each turn of ids in workspace ws (full access, rooted
// at root), evaluates calls tool calls in it, ends it and waits for the read
// models: with the projector's one recent turn, all but the last are then
// held only as summaries (folded from their streams when read).
func endedTurns(t *testing.T, eng *engine.Engine, proj *projections.Projector, root string, calls int, ids ...string) {
	t.Helper()
	ctx := context.Background()
	for _, id := range ids {
		if _, err := eng.Execute(ctx, id, &turn.StartTurn{TurnID: id, WorkspaceID: "ws", ThreadID: "th",
			Profile: &domain.ProfileRequest{Mode: domain.ModeFullAccess}, Inputs: turn.Inputs{WorkspaceRoot: root}}); err != nil {
			t.Fatal(err)
		}
		for i := range calls {
			if _, err := eng.Execute(ctx, id, &turn.EvaluateTool{ToolCallID: fmt.Sprintf("c%d", i),
				Invocation: domain.Invocation{ToolName: "task_list"}}); err != nil {
				t.Fatal(err)
			}
		}
		res, err := eng.Execute(ctx, id, &turn.EndTurn{Status: turn.StatusCompleted})
		if err != nil {
			t.Fatal(err)
		}
		if err := proj.WaitFor(ctx, res.Position); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range ids[:len(ids)-1] {
		if _, held, _ := proj.TurnHeld(id); held {
			t.Fatalf("turn %s is still held in full", id)
		}
	}
}
