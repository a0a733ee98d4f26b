package engine_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"turnstile/domain/engine"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

// gatedScan holds the first read of the whole log until released, and
// counts the reads.
type gatedScan struct {
	eventstore.Store
	reads   atomic.Int64
	entered chan struct{} // closed when the first read starts
	release chan struct{}
}

func (g *gatedScan) ReadAll(ctx context.Context, from eventstore.Position, max int) ([]eventstore.RecordedEvent, error) {
	if g.reads.Add(1) == 1 {
		close(g.entered)
		<-g.release
	}
	return g.Store.ReadAll(ctx, from, max)
}

// TestLocateRequestScansOneAtATime: a request id nobody has costs a read of
// the whole log; while one such search runs, another caller does not start
// a second read but waits, within its deadline (here, ended already: it
// gets its context's error and nothing is read). Control: once the first
// is done, the next search reads the log (and finds nothing either).
func TestLocateRequestScansOneAtATime(t *testing.T) {
	f := newFixture(t)
	g := &gatedScan{Store: f.store, entered: make(chan struct{}), release: make(chan struct{})}
	eng := engine.New(g, engine.Config{Kernel: kernel})
	first := make(chan error, 1)
	go func() {
		_, err := eng.LocateRequest(context.Background(), "00000000-0000-5000-8000-000000000001")
		first <- err
	}()
	<-g.entered
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := eng.LocateRequest(ended, "00000000-0000-5000-8000-000000000002"); !errors.Is(err, context.Canceled) {
		t.Fatalf("a second search while one runs: %v, want it to wait (and its context's end)", err)
	}
	if n := g.reads.Load(); n != 1 {
		t.Fatalf("%d reads of the log while one search ran, want 1", n)
	}
	close(g.release)
	var nf *turn.NotFoundError
	if err := <-first; !errors.As(err, &nf) {
		t.Fatalf("the first search: %v, want not found", err)
	}
	if _, err := eng.LocateRequest(context.Background(), "00000000-0000-5000-8000-000000000003"); !errors.As(err, &nf) {
		t.Fatalf("control, the next search: %v, want not found", err)
	}
	if n := g.reads.Load(); n < 2 {
		t.Fatalf("control: the next search read the log %d times in all, want a read of its own", n)
	}
}
