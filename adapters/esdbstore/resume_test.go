package esdbstore

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"turnstile/domain/eventstore"
	"turnstile/internal/esdbtest"
)

// subChecker reads a subscription and fails on gaps, duplicates, reordering
// and a second CaughtUp.
type subChecker struct {
	t        *testing.T
	sub      eventstore.Subscription
	last     eventstore.Position
	next     map[string]uint64 // next revision expected per stream
	caughtUp int
}

func newSubChecker(t *testing.T, s *Store, prefix string) *subChecker {
	t.Helper()
	sub, err := s.Subscribe(testCtx(t), eventstore.Start, prefix)
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	t.Cleanup(func() { _ = sub.Close() })
	return &subChecker{t: t, sub: sub, next: map[string]uint64{}}
}

func (c *subChecker) recv() eventstore.Message {
	c.t.Helper()
	m, err := c.sub.Recv(testCtx(c.t))
	if err != nil {
		c.t.Fatalf("Recv: %v", err)
	}
	if m.CaughtUp {
		if c.caughtUp++; c.caughtUp > 1 {
			c.t.Fatal("a second CaughtUp")
		}
		return m
	}
	e := m.Event
	if !c.last.Less(e.Position) {
		c.t.Fatalf("event %s@%d at %s after %s", e.Stream, e.Revision, e.Position, c.last)
	}
	if e.Revision != c.next[e.Stream] {
		c.t.Fatalf("%s: revision %d, want %d (gap or duplicate)", e.Stream, e.Revision, c.next[e.Stream])
	}
	c.last, c.next[e.Stream] = e.Position, e.Revision+1
	return m
}

// events reads until n events arrived.
func (c *subChecker) events(n int) {
	c.t.Helper()
	for got := 0; got < n; {
		if m := c.recv(); m.Event != nil {
			got++
		}
	}
}

// quiet checks that nothing more arrives for a moment (in particular no
// second CaughtUp).
func (c *subChecker) quiet() {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(testCtx(c.t), 200*time.Millisecond)
	defer cancel()
	if m, err := c.sub.Recv(ctx); !errors.Is(err, context.DeadlineExceeded) {
		c.t.Fatalf("unexpected message %+v, %v", m, err)
	}
}

func TestSubscriptionResumesAfterDrop(t *testing.T) {
	srv := esdbtest.Start(t)
	s := openStore(t, srv.ConnString(), Options{Timeout: 2 * time.Second})
	stream := "turn-" + uuid.NewString()
	prefix := stream
	mustAppend(t, s, stream, eventstore.NoStream(), newEvents(3, "stored"))

	c := newSubChecker(t, s, prefix)
	c.events(3)
	if m := c.recv(); !m.CaughtUp {
		t.Fatalf("want CaughtUp after the stored events, got %+v", m)
	}

	// Dropped while idle: the next events still arrive, once.
	if n := srv.DropSubscriptions(); n == 0 {
		t.Fatal("no live subscription to drop")
	}
	mustAppend(t, s, stream, eventstore.Exactly(2), newEvents(2, "after-drop"))
	c.events(2)

	// Dropped repeatedly while a writer appends.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 50 {
			if _, err := s.Append(testCtx(t), stream, eventstore.Exactly(uint64(4+i)), newEvents(1, "during")); err != nil {
				t.Errorf("Append: %v", err)
				return
			}
			if i%10 == 0 {
				srv.DropSubscriptions()
			}
		}
	}()
	c.events(50)
	wg.Wait()

	// The server goes away and comes back: the subscription resumes.
	srv.Down()
	// Observed, not slept: while the server is down an append fails, so the
	// client has certainly lost its connection before the server returns.
	if _, err := s.Append(testCtx(t), stream, eventstore.Exactly(54), newEvents(1, "while-down")); err == nil {
		t.Fatal("an append succeeded while the server was down")
	}
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, stream, eventstore.Exactly(54), newEvents(2, "after-restart"))
	c.events(2)
	c.quiet()
	if c.next[stream] != 57 {
		t.Fatalf("delivered up to revision %d, want 56", c.next[stream]-1)
	}
}

func TestSubscriptionEndsWithItsContext(t *testing.T) {
	srv := esdbtest.Start(t)
	s := openStore(t, srv.ConnString(), Options{})
	ctx, cancel := context.WithCancel(testCtx(t))
	sub, err := s.Subscribe(ctx, eventstore.Start, "turn-")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	cancel()
	for {
		_, err := sub.Recv(testCtx(t))
		if err == nil {
			continue // messages buffered before the end
		}
		if !errors.Is(err, context.Canceled) || errors.Is(err, eventstore.ErrClosed) {
			t.Fatalf("Recv after the subscription's context ended: %v", err)
		}
		break
	}
	if n := srv.Subscriptions(); n != 0 {
		// The server sees the cancellation asynchronously.
		deadline := time.Now().Add(5 * time.Second)
		for srv.Subscriptions() != 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n = srv.Subscriptions(); n != 0 {
			t.Fatalf("server still has %d subscriptions", n)
		}
	}
}

// TestSubscribeSkipsSystemStreams checks that an empty prefix means every
// user stream: the server's own $-streams (present from its start) are not
// delivered, nor read by ReadAll.
func TestSubscribeSkipsSystemStreams(t *testing.T) {
	srv := esdbtest.Start(t)
	s := openStore(t, srv.ConnString(), Options{})
	mustAppend(t, s, "orders-1", eventstore.NoStream(), newEvents(1, "user"))
	sub, err := s.Subscribe(testCtx(t), eventstore.Start, "")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	m, err := sub.Recv(testCtx(t))
	if err != nil || m.Event == nil || m.Event.Stream != "orders-1" {
		t.Fatalf("first message %+v, %v; want the user event", m, err)
	}
	if m, err = sub.Recv(testCtx(t)); err != nil || !m.CaughtUp {
		t.Fatalf("second message %+v, %v; want CaughtUp", m, err)
	}
	all, err := s.ReadAll(testCtx(t), eventstore.Start, 0)
	if err != nil || len(all) != 1 || all[0].Stream != "orders-1" {
		t.Fatalf("ReadAll: %d events, %v", len(all), err)
	}
}
