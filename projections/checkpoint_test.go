package projections

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

// tb is what the helpers need of *testing.T and *rapid.T.
type tb interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

func replay(t tb, o Options, evs []turn.Event) *Projector {
	t.Helper()
	p := NewWith(o)
	for i := range evs {
		if err := p.Apply(&evs[i]); err != nil {
			t.Fatalf("apply %d: %v", i, err)
		}
	}
	return p
}

// liveByStarter counts the held turns not yet ended by who started them,
// and the size of their events by whose command appended them (the
// service's for the starter: the quotas' counts, LiveTurnsOf and
// HeldBytesBy, taken the long way).
func liveByStarter(p *Projector, evs []turn.Event) (map[string]int, map[string]int64) {
	n, b := map[string]int{}, map[string]int64{}
	for _, t := range p.held {
		if t.startedBy != "agent-"+t.TurnID[:1] {
			panic(fmt.Sprintf("turn %s started by %q", t.TurnID, t.startedBy))
		}
		if t.Status == turn.StatusNone || t.Status.Terminal() {
			continue
		}
		n[t.startedBy]++
		for i := range evs {
			if evs[i].TurnID == t.TurnID && evs[i].Position.Less(p.pos) || evs[i].Position == p.pos && evs[i].TurnID == t.TurnID {
				who := evs[i].Actor.Name // the caller's, the service's for the starter
				if r := evs[i].Actor.Role; r == "" || r == "system" {
					who = t.startedBy
				}
				b[who] += int64(evs[i].Size)
			}
		}
	}
	return n, b
}

func exportJSON(t tb, p *Projector) string {
	t.Helper()
	b, err := json.Marshal(p.Export())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCheckpointPlusTailEqualsReplay: a projector restored from a
// checkpoint taken at any point, then fed the rest of the log, equals one
// that replayed the whole log; so does one restored with smaller bounds on
// recent turns (their number, their bytes) than the checkpoint's.
func TestCheckpointPlusTailEqualsReplay(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		h := drawHistory(rt)
		recent := rapid.SampledFrom([]int{1, 2, 3, 5, -1}).Draw(rt, "recent")
		recentBytes := rapid.SampledFrom([]int64{-1, 400, 1500, 6000}).Draw(rt, "recent_bytes")
		o := Options{RecentTurns: recent, RecentBytes: recentBytes}
		full := replay(rt, o, h.events)
		k := rapid.IntRange(0, len(h.events)).Draw(rt, "checkpoint_at")
		cp, mark, err := replay(rt, o, h.events[:k]).Checkpoint()
		if err != nil {
			rt.Fatal(err)
		}
		if k > 0 && (mark.EventID != h.events[k-1].ID || mark.Position != h.events[k-1].Position || mark.Stream != turn.StreamName(h.events[k-1].TurnID)) {
			rt.Fatalf("mark %+v is not the last event applied", mark)
		}
		restoreWith := []Options{o}
		if recent >= 0 {
			restoreWith = append(restoreWith, Options{RecentTurns: 1, RecentBytes: recentBytes})
		}
		if recentBytes < 0 || recentBytes > 400 {
			restoreWith = append(restoreWith, Options{RecentTurns: recent, RecentBytes: 400})
		}
		for _, o2 := range restoreWith {
			restored := NewWith(o2)
			if _, err := restored.Restore(cp, reader(h.events)); err != nil {
				rt.Fatal(err)
			}
			for i := k; i < len(h.events); i++ {
				if err := restored.Apply(&h.events[i]); err != nil {
					rt.Fatal(err)
				}
			}
			want := full
			if o2 != o {
				want = replay(rt, o2, h.events)
			}
			if got, want := exportJSON(rt, restored), exportJSON(rt, want); got != want {
				rt.Fatalf("%+v, checkpoint after %d of %d events:\nrestored+tail %s\nfull replay   %s", o2, k, len(h.events), got, want)
			}
			if restored.Applied() != want.Applied() || restored.recentBytes != want.recentBytes {
				rt.Fatalf("applied %d, recent bytes %d; want %d, %d", restored.Applied(), restored.recentBytes, want.Applied(), want.recentBytes)
			}
			wantN, wantB := liveByStarter(want, h.events)
			if !maps.Equal(restored.openBy, wantN) || !maps.Equal(restored.heldBy, wantB) || !maps.Equal(want.openBy, wantN) || !maps.Equal(want.heldBy, wantB) {
				rt.Fatalf("live turns and their bytes by who started them: restored+tail %v %v, full replay %v %v, counted %v %v",
					restored.openBy, restored.heldBy, want.openBy, want.heldBy, wantN, wantB)
			}
		}
	})
}

// TestEvictedTurnFoldsFromItsStream: what the projector keeps of an evicted
// turn equals the full fold of the turn's own events, and the full fold of
// a held turn equals the projector's; at most RecentTurns ended turns are
// held.
func TestEvictedTurnFoldsFromItsStream(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		h := drawHistory(rt)
		recent := rapid.IntRange(1, 4).Draw(rt, "recent")
		p := replay(rt, Options{RecentTurns: recent}, h.events)
		ended, compact := 0, 0
		for _, id := range h.order {
			f := FoldTurn(id)
			for i := range h.events {
				if h.events[i].TurnID == id {
					if err := f.Apply(&h.events[i]); err != nil {
						rt.Fatal(err)
					}
				}
			}
			want, _ := f.Turn()
			got, held, ok := p.TurnHeld(id)
			if !ok {
				rt.Fatalf("turn %s unknown", id)
			}
			if got.Status.Terminal() && held {
				ended++
			}
			if !held {
				compact++
				if !got.Status.Terminal() {
					rt.Fatalf("open turn %s evicted", id)
				}
				if _, held := p.AuditOf(id, 0, 0); held {
					rt.Fatalf("compact turn %s still has its audit", id)
				}
				want.Snapshot, want.Children = got.Snapshot, nil // not kept
			} else {
				a, _ := p.AuditOf(id, 0, 0)
				tl, _ := p.TimelineOf(id)
				if !jsonEqual(a, f.Audit(0, 0)) || !jsonEqual(tl, f.Timeline()) || !jsonEqual(p.Approvals(ApprovalFilter{TurnID: id}), f.Approvals(ApprovalFilter{})) {
					rt.Fatalf("held turn %s: the projector's audit, timeline or approvals differ from the fold of its stream", id)
				}
			}
			if !reflect.DeepEqual(got, want) {
				rt.Fatalf("turn %s: projector %+v\nfold of its stream %+v", id, got, want)
			}
		}
		if ended > recent {
			rt.Fatalf("%d ended turns held, bound %d", ended, recent)
		}
		if len(h.order) > 0 && compact+ended > recent && compact == 0 {
			rt.Fatalf("nothing evicted")
		}
	})
}

// reader reads a turn's stream out of evs.
func reader(evs []turn.Event) TurnReader {
	return func(id string, apply func(*turn.Event) error) error {
		for i := range evs {
			if evs[i].TurnID == id {
				if err := apply(&evs[i]); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// TestRestoreRefuses: a checkpoint that was damaged, cut short, of another
// format, or written with a smaller recent bound is refused with
// ErrBadCheckpoint and leaves the projector empty; the intact one (the
// control) restores.
func TestRestoreRefuses(t *testing.T) {
	h := &history{}
	rapid.Check(t, func(rt *rapid.T) {
		if len(h.events) < 20 {
			h = drawHistory(rt)
		}
	})
	p := replay(t, Options{RecentTurns: 2, RecentBytes: 1500}, h.events)
	cp, _, err := p.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	flip := bytes.Clone(cp)
	flip[len(flip)-10] ^= 1
	nl := bytes.IndexByte(cp, '\n')
	otherFormat := bytes.Replace(bytes.Clone(cp), []byte(" 1 "), []byte(" 3 "), 1)
	cases := map[string]struct {
		b []byte
		o Options
	}{
		"flipped bit":          {flip, Options{RecentTurns: 2}},
		"truncated":            {cp[:len(cp)-1], Options{RecentTurns: 2}},
		"header only":          {cp[:nl+1], Options{RecentTurns: 2}},
		"empty":                {nil, Options{RecentTurns: 2}},
		"another format":       {otherFormat, Options{RecentTurns: 2}},
		"larger recent bound":  {cp, Options{RecentTurns: 3}},
		"holds every turn now": {cp, Options{RecentTurns: -1}},
		"larger byte bound":    {cp, Options{RecentTurns: 2, RecentBytes: 1501}},
		"no byte bound now":    {cp, Options{RecentTurns: 2, RecentBytes: -1}},
	}
	for name, c := range cases {
		r := NewWith(c.o)
		if _, err := r.Restore(c.b, reader(h.events)); !errors.Is(err, ErrBadCheckpoint) {
			t.Errorf("%s: restore returned %v, want ErrBadCheckpoint", name, err)
		}
		if r.Applied() != 0 || len(r.Turns(TurnFilter{})) != 0 {
			t.Errorf("%s: a refused checkpoint left state behind", name)
		}
	}
	// Held turns are folded again from their streams: a store without
	// them (restored from an older backup) refuses the checkpoint.
	if _, err := NewWith(Options{RecentTurns: 2, RecentBytes: 1500}).Restore(cp, reader(nil)); !errors.Is(err, ErrBadCheckpoint) {
		t.Errorf("a store without the held turns: %v, want ErrBadCheckpoint", err)
	}
	// A store that reads streams without positions cannot say which
	// events come after the checkpoint: refused rather than folded twice.
	noPos := slices.Clone(h.events)
	for i := range noPos {
		noPos[i].Position = eventstore.Position{}
	}
	if _, err := NewWith(Options{RecentTurns: 2, RecentBytes: 1500}).Restore(cp, reader(noPos)); !errors.Is(err, ErrBadCheckpoint) {
		t.Errorf("stream reads without positions: %v, want ErrBadCheckpoint", err)
	}
	r := NewWith(Options{RecentTurns: 2, RecentBytes: 1500})
	if _, err := r.Restore(cp, reader(h.events)); err != nil {
		t.Fatalf("control: %v", err)
	}
	if exportJSON(t, r) != exportJSON(t, p) {
		t.Fatal("control: the restored projector differs")
	}
	if _, err := r.Restore(cp, reader(h.events)); !errors.Is(err, ErrBadCheckpoint) {
		t.Fatalf("restoring twice: %v", err)
	}
}
