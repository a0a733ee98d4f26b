package fanout_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"turnstile/adapters/boltstore"
	"turnstile/domain/eventstore"
	"turnstile/internal/fanout"
)

// start runs a broadcaster with a ring of size frames over a real store; each
// event's frame is its data, and events of streams named skip-… are skipped.
func start(t *testing.T, size int) (*fanout.Broadcaster, *boltstore.Store, *atomic.Int64) {
	t.Helper()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "events.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var slow atomic.Int64
	b := fanout.New(fanout.Config{Store: st, Buffer: size, OnSlow: func() { slow.Add(1) },
		Encode: func(_ context.Context, r *eventstore.RecordedEvent) (*fanout.Frame, error) {
			if len(r.Stream) > 5 && r.Stream[:5] == "skip-" {
				return nil, nil
			}
			return &fanout.Frame{Bytes: r.Data}, nil
		}})
	ctx, cancel := context.WithCancel(context.Background())
	go b.Run(ctx, eventstore.Start)
	t.Cleanup(func() { cancel(); <-b.Done(); st.Close() })
	return b, st, &slow
}

func appendOne(t *testing.T, st *boltstore.Store, stream, data string) eventstore.Position {
	t.Helper()
	res, err := st.Append(context.Background(), stream, eventstore.Any(), []eventstore.EventData{{ID: uuid.New(), Type: "t", Data: []byte(data), Metadata: []byte("{}")}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Position
}

// until takes frames until the broadcaster has published pos.
func until(t *testing.T, c *fanout.Client, b *fanout.Broadcaster, pos eventstore.Position) ([]string, error) {
	t.Helper()
	var got []string
	for {
		wake := c.Wake()
		fs, err := c.Take(make([]*fanout.Frame, 0, 64))
		for _, f := range fs {
			got = append(got, string(f.Bytes))
		}
		if err != nil {
			return got, err
		}
		if !b.Head().Less(pos) && !c.Pending() {
			return got, nil
		}
		<-wake
	}
}

// TestClientsGetEveryFrameInOrderSkippedOnesLeftOut: two clients joined
// before the events each get every frame once, in order; a skipped event
// moves the head without a frame.
func TestClientsGetEveryFrameInOrderSkippedOnesLeftOut(t *testing.T) {
	b, st, slow := start(t, 64)
	c1, c2 := b.Join(), b.Join()
	defer c1.Leave()
	defer c2.Leave()
	appendOne(t, st, "a", "1")
	appendOne(t, st, "skip-x", "x")
	last := appendOne(t, st, "a", "2")
	for i, c := range []*fanout.Client{c1, c2} {
		got, err := until(t, c, b, last)
		if err != nil || len(got) != 2 || got[0] != "1" || got[1] != "2" {
			t.Fatalf("client %d: %v %v", i, got, err)
		}
	}
	if c3 := b.Join(); c3.Joined() != last {
		t.Fatalf("a client joining now starts after %v, want %v", c3.Joined(), last)
	}
	if slow.Load() != 0 || b.Clients() != 3 {
		t.Fatalf("slow %d, clients %d", slow.Load(), b.Clients())
	}
}

// TestOverrunClientIsCutOff: a client that takes nothing while more events
// than the ring holds are published is cut off (ErrSlow, Kicked, OnSlow
// once); a client that takes as they come is not (the control).
func TestOverrunClientIsCutOff(t *testing.T) {
	b, st, slow := start(t, 4)
	idle, busy := b.Join(), b.Join()
	var got []string
	var last eventstore.Position
	for i := range 10 {
		last = appendOne(t, st, "a", string(rune('a'+i)))
		fs, err := until(t, busy, b, last)
		if err != nil {
			t.Fatalf("the client that keeps up was cut off after %d events: %v", i, err)
		}
		got = append(got, fs...)
	}
	if len(got) != 10 {
		t.Fatalf("the client that keeps up got %v", got)
	}
	select {
	case <-idle.Kicked():
	default:
		t.Fatal("the idle client was not cut off")
	}
	if _, err := idle.Take(make([]*fanout.Frame, 0, 8)); !errors.Is(err, fanout.ErrSlow) {
		t.Fatalf("take after the cut: %v", err)
	}
	if slow.Load() != 1 {
		t.Fatalf("OnSlow called %d times", slow.Load())
	}
}

// TestWakeIntervalGrowsWithClients: with many clients the broadcaster
// wakes them less often (at least PerClient × clients apart), so each
// wake-up carries more frames. Ten clients at 100ms each: a second event
// right after a first reaches them no sooner than a second after the first
// was appended, and a client of a later cohort later still (the wake-ups
// are spread over the interval); with one client (the control) well within
// that second.
func TestWakeIntervalGrowsWithClients(t *testing.T) {
	for _, tc := range []struct {
		clients int
		slow    bool
	}{{10, true}, {1, false}} {
		st, err := boltstore.Open(filepath.Join(t.TempDir(), "events.db"), boltstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		b := fanout.New(fanout.Config{Store: st, Interval: time.Millisecond, PerClient: 100 * time.Millisecond,
			Encode: func(_ context.Context, r *eventstore.RecordedEvent) (*fanout.Frame, error) {
				return &fanout.Frame{Bytes: r.Data}, nil
			}})
		ctx, cancel := context.WithCancel(context.Background())
		go b.Run(ctx, eventstore.Start)
		var cs []*fanout.Client
		for range tc.clients {
			cs = append(cs, b.Join())
		}
		t0 := time.Now()
		// cs[3], the fourth client joined, is in cohort 4 of 8: waiting from
		// before the first event, it is woken half an interval after cohort 0.
		later := make(chan time.Duration, 1)
		if tc.slow {
			go func() {
				buf := make([]*fanout.Frame, 0, 8)
				for {
					wake := cs[3].Wake()
					if fs, err := cs[3].Take(buf[:0]); err != nil || len(fs) > 0 {
						later <- time.Since(t0)
						return
					}
					<-wake
				}
			}()
		}
		first := appendOne(t, st, "a", "1")
		if got, err := until(t, cs[0], b, first); err != nil || len(got) != 1 {
			t.Fatalf("%d clients: first event: %v %v", tc.clients, got, err)
		}
		second := appendOne(t, st, "a", "2")
		if got, err := until(t, cs[0], b, second); err != nil || len(got) != 1 {
			t.Fatalf("%d clients: second event: %v %v", tc.clients, got, err)
		}
		took := time.Since(t0)
		if tc.slow && took < time.Second {
			t.Errorf("10 clients: the second event arrived %v after the first was appended, want >= 1s (10 x 100ms)", took)
		}
		if tc.slow {
			if d := <-later; d < 500*time.Millisecond {
				t.Errorf("cohort 4 had the first event %v after it was appended, want >= 0.5s (4/8 of the 1s interval)", d)
			}
		}
		for _, c := range cs {
			c.Leave()
		}
		cancel()
		<-b.Done()
		st.Close()
	}
}
