package fanout_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
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
	return startWith(t, size, func(r *eventstore.RecordedEvent) *fanout.Frame { return &fanout.Frame{Bytes: r.Data} })
}

// startWith is start with the frames frame makes of the events not skipped.
func startWith(t *testing.T, size int, frame func(*eventstore.RecordedEvent) *fanout.Frame) (*fanout.Broadcaster, *boltstore.Store, *atomic.Int64) {
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
			return frame(r), nil
		}})
	ctx, cancel := context.WithCancel(context.Background())
	go b.Run(ctx)
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

// TestClientBehindTheByteBoundIsCutOff: the ring holds at most FrameBytes a
// slot of frames in all; past it the oldest frames go, and a client that had
// not taken them is cut off as when the ring wraps, although far fewer
// frames than the ring's slots were published. A client that takes them as
// they come gets every one (the control).
func TestClientBehindTheByteBoundIsCutOff(t *testing.T) {
	b, st, slow := start(t, 64) // 64 slots: 512 KiB
	idle, busy := b.Join(), b.Join()
	big := strings.Repeat("x", 200<<10)
	var got []string
	for i := range 4 {
		last := appendOne(t, st, "a", big)
		fs, err := until(t, busy, b, last)
		if err != nil {
			t.Fatalf("the client that keeps up was cut off after %d frames: %v", i, err)
		}
		got = append(got, fs...)
	}
	if len(got) != 4 {
		t.Fatalf("the client that keeps up got %d frames, want 4", len(got))
	}
	if _, err := idle.Take(make([]*fanout.Frame, 0, 8)); !errors.Is(err, fanout.ErrSlow) {
		t.Fatalf("a client 800 KiB behind a 512 KiB ring was not cut off: %v", err)
	}
	if slow.Load() != 1 {
		t.Fatalf("OnSlow called %d times", slow.Load())
	}
}

// waiter follows one client from before anything is published, taking
// frames only when woken: at[i] is when it had frame i+1 (after the events
// were appended at start). go: before wanting frame i+1 (i >= 1), it waits
// for a send on next, having taken what was there and its wake channel, so
// a frame published after that send reaches it only through a wake-up.
func waiter(c *fanout.Client, frames int, start time.Time, ready chan<- struct{}, next <-chan struct{}, at chan<- time.Duration) {
	buf := make([]*fanout.Frame, 0, 8)
	got := 0
	wake := c.Wake()
	c.Take(buf[:0])
	close(ready)
	for got < frames {
		<-wake
		wake = c.Wake()
		fs, err := c.Take(buf[:0])
		if err != nil {
			return
		}
		for range fs {
			got++
			at <- time.Since(start)
			if got < frames {
				<-next
			}
		}
	}
}

// TestWakeIntervalGrowsWithClients: with many clients the broadcaster
// wakes them less often (at least PerClient × clients apart), so each
// wake-up carries more frames, and spreads the wake-ups of its cohorts over
// that interval. Ten clients at 100ms each: a waiting client gets a second
// event, appended right after it had the first, no sooner than a second
// after the first was appended, and a client of cohort 4 gets the first
// half an interval later than cohort 0 would; with one client (the
// control) the second comes well within that second, and so it does with
// one client and ten followers of quiet turns (JoinTurn): only clients
// woken stretch the interval (attack 20: 3,000 streams of turns that never
// get an event delayed every other client by ~300 ms).
func TestWakeIntervalGrowsWithClients(t *testing.T) {
	for _, tc := range []struct {
		clients, quiet int
		slow           bool
	}{{10, 0, true}, {1, 0, false}, {1, 10, false}} {
		st, err := boltstore.Open(filepath.Join(t.TempDir(), "events.db"), boltstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		b := fanout.New(fanout.Config{Store: st, Interval: time.Millisecond, PerClient: 100 * time.Millisecond,
			Encode: func(_ context.Context, r *eventstore.RecordedEvent) (*fanout.Frame, error) {
				return &fanout.Frame{Bytes: r.Data}, nil
			}})
		ctx, cancel := context.WithCancel(context.Background())
		go b.Run(ctx)
		var cs []*fanout.Client
		for range tc.clients {
			cs = append(cs, b.Join())
		}
		for i := range tc.quiet {
			defer b.JoinTurn(fmt.Sprintf("quiet-%d", i)).Leave()
		}
		t0 := time.Now()
		// cs[0] is in cohort 1 of 8; cs[3] (the fourth joined) in cohort 4.
		ready0, ready3 := make(chan struct{}), make(chan struct{})
		next := make(chan struct{})
		at0, at3 := make(chan time.Duration, 2), make(chan time.Duration, 1)
		go waiter(cs[0], 2, t0, ready0, next, at0)
		if tc.slow {
			go waiter(cs[3], 1, t0, ready3, nil, at3)
			<-ready3
		}
		<-ready0
		appendOne(t, st, "a", "1")
		<-at0
		appendOne(t, st, "a", "2")
		next <- struct{}{}
		took := <-at0
		if tc.slow && took < time.Second {
			t.Errorf("10 clients: the second event arrived %v after the first was appended, want >= 1s (10 x 100ms)", took)
		}
		if !tc.slow && took >= time.Second {
			t.Errorf("1 client: the second event took %v, want well under 1s (100ms apart)", took)
		}
		if tc.slow {
			if d := <-at3; d < 500*time.Millisecond {
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

// TestClientJoinedBeforeRunStartsAtFrom: a client that joins a broadcaster
// whose Run has not begun (the server starts it in a goroutine with the
// first stream) is told it starts after From, the position the broadcast
// starts from, and gets the events after it; it was told the start of the
// log, and a stream announced "events from" a position it never sent.
func TestClientJoinedBeforeRunStartsAtFrom(t *testing.T) {
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "events.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	appendOne(t, st, "a", "old")
	from := appendOne(t, st, "a", "old too")
	b := fanout.New(fanout.Config{Store: st, From: from,
		Encode: func(_ context.Context, r *eventstore.RecordedEvent) (*fanout.Frame, error) {
			return &fanout.Frame{Bytes: r.Data}, nil
		}})
	c := b.Join()
	defer c.Leave()
	if c.Joined() != from {
		t.Fatalf("joined before Run: starts after %v, want %v", c.Joined(), from)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); <-b.Done() }()
	go b.Run(ctx)
	last := appendOne(t, st, "a", "new")
	got, err := until(t, c, b, last)
	if err != nil || len(got) != 1 || got[0] != "new" {
		t.Fatalf("got %q, %v; want the one event after From", got, err)
	}
}
