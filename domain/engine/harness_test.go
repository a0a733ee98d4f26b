package engine_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"turnstile/adapters/boltstore"
	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/eventstore"
	"turnstile/projections"
)

// clock is a test clock that moves only when told.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

var kernel = domain.KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true}

// fixture is a real embedded store in a temp dir, an engine over it, and a
// projector following it.
type fixture struct {
	t     testing.TB
	path  string
	store eventstore.Store
	eng   *engine.Engine
	proj  *projections.Projector
	clock *clock
	stop  func()
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{t: t, path: filepath.Join(t.TempDir(), "events.db"), clock: &clock{now: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}}
	f.open()
	t.Cleanup(f.close)
	return f
}

func (f *fixture) open() {
	st, err := boltstore.Open(f.path, boltstore.Options{})
	if err != nil {
		f.t.Fatal(err)
	}
	f.store = st
	f.eng = engine.New(st, engine.Config{Kernel: kernel, Now: f.clock.Now, Trust: domain.MCPTrust{"docs/*"}})
	f.proj = projections.New()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := f.proj.Follow(ctx, st, func() { close(ready) }); err != nil && ctx.Err() == nil {
			f.t.Errorf("projector stopped: %v", err)
		}
	}()
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		f.t.Fatal("projector did not catch up")
	}
	f.stop = func() { cancel(); <-done }
}

func (f *fixture) close() {
	if f.stop != nil {
		f.stop()
		f.stop = nil
	}
	if f.store != nil {
		f.store.Close()
		f.store = nil
	}
}

// sync waits until the projector has applied pos.
func (f *fixture) sync(pos eventstore.Position) {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := f.proj.WaitFor(ctx, pos); err != nil {
		f.t.Fatalf("projector did not reach %s: %v", pos, err)
	}
}

func projectionsAll() projections.ApprovalFilter { return projections.ApprovalFilter{} }
