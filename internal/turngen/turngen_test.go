package turngen_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"turnstile/adapters/logstore"
	"turnstile/domain/engine"
	"turnstile/internal/turngen"
)

// TestFill writes closed and open turns through the engine and checks each
// stream holds what Write and Run counted: EventsPerTurn events for a closed
// turn, two fewer (no answer, no end) for an open one.
func TestFill(t *testing.T) {
	st, err := logstore.Open(filepath.Join(t.TempDir(), "events"), logstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	eng := engine.New(st, engine.Config{})
	const turns = 6
	var (
		mu       sync.Mutex
		progress int64
	)
	f := turngen.Fill{Turns: turns, Workers: 3, Turn: func(i int) turngen.Turn {
		return turngen.Turn{ID: fmt.Sprintf("t%d", i), WorkspaceID: "ws", Root: "/work/repo", Open: i%2 == 1}
	}, Progress: func(turns, events int64) {
		mu.Lock()
		progress = max(progress, turns)
		mu.Unlock()
	}}
	total, err := f.Run(ctx, eng)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(turns/2*turngen.EventsPerTurn + turns/2*(turngen.EventsPerTurn-2)); total != want {
		t.Errorf("Run wrote %d events, want %d", total, want)
	}
	if progress != turns {
		t.Errorf("progress reached %d turns, want %d", progress, turns)
	}
	var stored int
	for i := range turns {
		evs, err := st.ReadStream(ctx, "turn-"+fmt.Sprintf("t%d", i), 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		want := turngen.EventsPerTurn
		if i%2 == 1 {
			want -= 2
		}
		if len(evs) != want {
			t.Errorf("turn t%d has %d events, want %d", i, len(evs), want)
		}
		stored += len(evs)
	}
	if int64(stored) != total {
		t.Errorf("streams hold %d events, Run counted %d", stored, total)
	}
}
