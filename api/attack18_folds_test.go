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
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

// gatedStore holds every read of one stream at a gate, counting the reads
// in flight and the largest page asked for.
type gatedStore struct {
	eventstore.Store
	stream   string
	on       atomic.Bool
	inFlight atomic.Int64
	maxPage  atomic.Int64
	gate     chan struct{}
}

func (g *gatedStore) ReadStream(ctx context.Context, stream string, from uint64, max int) ([]eventstore.RecordedEvent, error) {
	if stream == g.stream && g.on.Load() {
		g.inFlight.Add(1)
		defer g.inFlight.Add(-1)
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
// api.MaxFolds folds run at once, the others wait for a slot, and a fold
// reads at most api.FoldPage events at a time. Control: every read is
// answered, with the turn.
func TestAttack18OldTurnFoldsBounded(t *testing.T) {
	ctx := context.Background()
	bolt, err := boltstore.Open(filepath.Join(t.TempDir(), "events.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := &gatedStore{Store: bolt, stream: turn.StreamName("big"), gate: make(chan struct{})}
	eng, proj, srv, s := serveStoreInProcess(t, st, bolt)

	root := t.TempDir()
	for _, id := range []string{"big", "later"} {
		if _, err := eng.Execute(ctx, id, &turn.StartTurn{TurnID: id, WorkspaceID: "ws", ThreadID: "th",
			Profile: &domain.ProfileRequest{Mode: domain.ModeFullAccess}, Inputs: turn.Inputs{WorkspaceRoot: root}}); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
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
	if _, held, _ := proj.TurnHeld("big"); held {
		t.Fatal("the turn is still held in full")
	}

	const readers = 8
	if api.MaxFolds >= readers {
		t.Fatalf("the test needs more readers than slots (%d)", api.MaxFolds)
	}
	st.on.Store(true)
	var wg sync.WaitGroup
	codes := make([]int, readers)
	for i := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _ = s.do("GET", "/v1/turns/big", nil)
		}()
	}
	// Every reader is either reading the stream (held at the gate) or
	// waiting for a slot; then the reads in flight are the slots.
	deadline := time.Now().Add(30 * time.Second)
	for st.inFlight.Load()+api.FoldsWaiting(srv) < readers {
		if time.Now().After(deadline) {
			t.Fatalf("the readers did not arrive: %d reading, %d waiting", st.inFlight.Load(), api.FoldsWaiting(srv))
		}
		time.Sleep(time.Millisecond) // polled: the arrivals have no event to wait on
	}
	if n := st.inFlight.Load(); n != api.MaxFolds {
		t.Errorf("%d folds read the stream at once, want %d (the others waiting: %d)", n, api.MaxFolds, api.FoldsWaiting(srv))
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
