package fanout_test

import (
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"turnstile/adapters/boltstore"
	"turnstile/domain/eventstore"
	"turnstile/internal/fanout"
)

// startTurns is start with frames that name their turn: the event of
// stream turn-X is a frame of turn X.
func startTurns(t *testing.T, size int) (*fanout.Broadcaster, *boltstore.Store, *atomic.Int64) {
	return startWith(t, size, func(r *eventstore.RecordedEvent) *fanout.Frame {
		return &fanout.Frame{Bytes: r.Data, TurnID: strings.TrimPrefix(r.Stream, "turn-")}
	})
}

// published waits until the broadcaster has published pos, through a client
// of its own.
func published(t *testing.T, b *fanout.Broadcaster, pos eventstore.Position) {
	t.Helper()
	c := b.Join()
	defer c.Leave()
	for b.Head().Less(pos) {
		select {
		case <-c.Wake():
		case <-time.After(time.Minute):
			t.Fatalf("%v was not published within a minute", pos)
		}
		if _, err := c.Take(make([]*fanout.Frame, 0, 64)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTurnFollowerGetsItsTurnOnly: a client that follows one turn gets that
// turn's frames published after it joined, in order, and no other turn's;
// its Joined position hands over from the store exactly as Join's does. A
// client of every frame (the control) gets them all. Once its followers
// have left, the turn is no longer followed.
func TestTurnFollowerGetsItsTurnOnly(t *testing.T) {
	b, st, slow := startTurns(t, 64)
	before := appendOne(t, st, "turn-a", "a0")
	published(t, b, before)
	fa, all := b.JoinTurn("a"), b.Join()
	if fa.Joined() != before {
		t.Fatalf("a turn follower joining now starts after %v, want %v", fa.Joined(), before)
	}
	for _, e := range [][2]string{{"turn-a", "a1"}, {"turn-b", "b1"}, {"skip-x", "x"}, {"turn-a", "a2"}, {"turn-b", "b2"}} {
		appendOne(t, st, e[0], e[1])
	}
	last := appendOne(t, st, "turn-a", "a3")
	got, err := until(t, fa, b, last)
	if err != nil || !slices.Equal(got, []string{"a1", "a2", "a3"}) {
		t.Fatalf("the follower of turn a got %v (%v), want a1 a2 a3", got, err)
	}
	got, err = until(t, all, b, last)
	if err != nil || !slices.Equal(got, []string{"a1", "b1", "a2", "b2", "a3"}) {
		t.Fatalf("the client of every frame got %v (%v)", got, err)
	}
	fb := b.JoinTurn("b")
	last = appendOne(t, st, "turn-b", "b3")
	appendOne(t, st, "turn-a", "a4")
	if got, err = until(t, fb, b, last); err != nil || !slices.Equal(got, []string{"b3"}) {
		t.Fatalf("the follower of turn b, joined after b2, got %v (%v), want b3", got, err)
	}
	if n := b.TurnsFollowed(); n != 2 {
		t.Fatalf("%d turns followed, want 2", n)
	}
	fa.Leave()
	fb.Leave()
	all.Leave()
	if n := b.TurnsFollowed(); n != 0 || b.Clients() != 0 {
		t.Fatalf("after every client left: %d turns followed, %d clients", n, b.Clients())
	}
	if slow.Load() != 0 {
		t.Fatalf("%d clients cut off", slow.Load())
	}
}

// TestQuietTurnFollowerIsNeitherWokenNorCutOff: while more frames of other
// turns than the ring holds are published, the follower of a quiet turn is
// never woken, has nothing pending and is not cut off, where a client of
// every frame that does not read is (the control: the ring did wrap). The
// quiet turn's first frame then wakes it.
func TestQuietTurnFollowerIsNeitherWokenNorCutOff(t *testing.T) {
	b, st, slow := startTurns(t, 4)
	quiet, idle, busy := b.JoinTurn("q"), b.Join(), b.Join()
	wake := quiet.Wake() // taken as a client takes it, before it waits
	var last eventstore.Position
	for i := range 10 {
		last = appendOne(t, st, "turn-a", string(rune('a'+i)))
		if _, err := until(t, busy, b, last); err != nil {
			t.Fatalf("the client that keeps up was cut off after %d events: %v", i, err)
		}
	}
	select {
	case <-idle.Kicked():
	default:
		t.Fatal("the idle client of every frame was not cut off: the ring did not wrap")
	}
	select {
	case <-wake:
		t.Fatal("the follower of a quiet turn was woken by other turns' frames")
	case <-quiet.Kicked():
		t.Fatal("the follower of a quiet turn was cut off by other turns' frames")
	default:
	}
	if quiet.Pending() {
		t.Fatal("the follower of a quiet turn has frames pending")
	}
	appendOne(t, st, "turn-q", "q1")
	select {
	case <-wake:
	case <-time.After(time.Minute):
		t.Fatal("the quiet turn's frame did not wake its follower within a minute")
	}
	fs, err := quiet.Take(make([]*fanout.Frame, 0, 8))
	if err != nil || len(fs) != 1 || string(fs[0].Bytes) != "q1" {
		t.Fatalf("the follower took %d frames (%v), want q1", len(fs), err)
	}
	if slow.Load() != 1 {
		t.Fatalf("OnSlow called %d times, want once (the idle client)", slow.Load())
	}
}

// TestTurnFollowerOverrunIsCutOff: a turn follower that takes nothing while
// more of its turn's frames than the ring holds are published is cut off
// (ErrSlow, Kicked, its queue dropped); another follower of the same turn
// that takes them as they come gets every one (the control).
func TestTurnFollowerOverrunIsCutOff(t *testing.T) {
	b, st, slow := startTurns(t, 4)
	lazy, keeper := b.JoinTurn("a"), b.JoinTurn("a")
	var got []string
	for i := range 10 {
		last := appendOne(t, st, "turn-a", string(rune('a'+i)))
		fs, err := until(t, keeper, b, last)
		if err != nil {
			t.Fatalf("the follower that keeps up was cut off after %d frames: %v", i, err)
		}
		got = append(got, fs...)
	}
	if len(got) != 10 {
		t.Fatalf("the follower that keeps up got %v", got)
	}
	select {
	case <-lazy.Kicked():
	default:
		t.Fatal("the follower that took nothing was not cut off")
	}
	if _, err := lazy.Take(make([]*fanout.Frame, 0, 8)); !errors.Is(err, fanout.ErrSlow) {
		t.Fatalf("take after the cut: %v", err)
	}
	if lazy.Pending() || lazy.Queued() != 0 {
		t.Fatalf("the cut-off follower still holds %d frames", lazy.Queued())
	}
	if slow.Load() != 1 {
		t.Fatalf("OnSlow called %d times", slow.Load())
	}
}

// TestTurnFollowerBehindTheByteBoundIsCutOff: the ring's byte bound holds
// for what is queued for turn followers too: a follower that has not taken
// a frame the ring dropped is cut off, although far fewer frames than the
// ring's slots were published; one that takes them gets every one, and the
// follower of another turn, none of whose frames were dropped, is not cut
// off (the controls).
func TestTurnFollowerBehindTheByteBoundIsCutOff(t *testing.T) {
	b, st, slow := startTurns(t, 64) // 64 slots: 512 KiB
	lazy, keeper, other := b.JoinTurn("a"), b.JoinTurn("a"), b.JoinTurn("q")
	big := strings.Repeat("x", 200<<10)
	n := 0
	for i := range 4 {
		last := appendOne(t, st, "turn-a", big)
		fs, err := until(t, keeper, b, last)
		if err != nil {
			t.Fatalf("the follower that keeps up was cut off after %d frames: %v", i, err)
		}
		n += len(fs)
	}
	if n != 4 {
		t.Fatalf("the follower that keeps up got %d frames, want 4", n)
	}
	if _, err := lazy.Take(make([]*fanout.Frame, 0, 8)); !errors.Is(err, fanout.ErrSlow) {
		t.Fatalf("a follower 800 KiB behind a 512 KiB ring was not cut off: %v", err)
	}
	if lazy.Queued() != 0 {
		t.Fatalf("the cut-off follower still holds %d frames the ring dropped", lazy.Queued())
	}
	select {
	case <-other.Kicked():
		t.Fatal("the follower of another turn was cut off")
	default:
	}
	if slow.Load() != 1 {
		t.Fatalf("OnSlow called %d times", slow.Load())
	}
}
