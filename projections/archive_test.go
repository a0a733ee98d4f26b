package projections

import (
	"errors"
	"testing"

	"pgregory.net/rapid"
)

// diskArchive stands for an archive on disk: a memArchive that names an
// epoch, so a checkpoint names it instead of carrying the summaries, and
// outlives the projector that wrote it (a restart opens the same one).
type diskArchive struct {
	*memArchive
	epoch string
}

func (d *diskArchive) Epoch() string { return d.epoch }

func (d *diskArchive) Reset() error {
	d.epoch += "'"
	return d.memArchive.Reset()
}

// TestArchiveAheadOfCheckpoint: with an archive that outlives the process,
// a checkpoint names the archive; the server goes on past it (turns end and
// are archived, events arrive for archived turns) and stops before the
// next checkpoint. Restored from that checkpoint over the same archive and
// fed the rest of the log, the projector equals a full replay: what the
// archive holds beyond the checkpoint is neither lost nor folded twice.
func TestArchiveAheadOfCheckpoint(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		h := drawHistory(rt)
		recent := rapid.SampledFrom([]int{1, 2, 3}).Draw(rt, "recent")
		recentBytes := rapid.SampledFrom([]int64{-1, 400, 1500}).Draw(rt, "recent_bytes")
		k := rapid.IntRange(0, len(h.events)).Draw(rt, "checkpoint_at")
		j := rapid.IntRange(k, len(h.events)).Draw(rt, "stopped_at")
		a := &diskArchive{memArchive: newMemArchive(), epoch: "e"}
		o := Options{RecentTurns: recent, RecentBytes: recentBytes, Archive: a}
		server := replay(rt, o, h.events[:k])
		cp, _, err := server.Checkpoint()
		if err != nil {
			rt.Fatal(err)
		}
		if server.archive.Len() > 0 && len(cp) > 4096 {
			rt.Fatalf("a checkpoint of %d bytes names an archive", len(cp))
		}
		for i := k; i < j; i++ {
			if err := server.Apply(&h.events[i]); err != nil {
				rt.Fatal(err)
			}
		}
		restarted := NewWith(o)
		if _, err := restarted.Restore(cp, reader(h.events)); err != nil {
			rt.Fatal(err)
		}
		// Before the tail, the archive may hold turns the restored
		// projector holds again: each is listed once, as held.
		atCheckpoint := replay(rt, Options{RecentTurns: recent, RecentBytes: recentBytes}, h.events[:k])
		listed := restarted.Turns(TurnFilter{})
		for i, v := range listed {
			if i > 0 && listed[i-1].TurnID >= v.TurnID {
				rt.Fatalf("listed out of order or twice: %s after %s", v.TurnID, listed[i-1].TurnID)
			}
			if _, held, _ := atCheckpoint.TurnHeld(v.TurnID); held && !jsonEqual(v, atCheckpoint.held[v.TurnID].TurnView) {
				rt.Fatalf("held turn %s listed as %+v, want %+v", v.TurnID, v, atCheckpoint.held[v.TurnID].TurnView)
			}
		}
		for i := k; i < len(h.events); i++ {
			if err := restarted.Apply(&h.events[i]); err != nil {
				rt.Fatal(err)
			}
		}
		want := replay(rt, Options{RecentTurns: recent, RecentBytes: recentBytes}, h.events)
		if got, want := exportJSON(rt, restarted), exportJSON(rt, want); got != want {
			rt.Fatalf("checkpoint after %d, stopped after %d of %d events:\nrestored+tail %s\nfull replay   %s", k, j, len(h.events), got, want)
		}
		for _, f := range []TurnFilter{{}, {Limit: 2}, {WorkspaceID: "ws1"}, {WorkspaceID: "ws2", Limit: 1}, {Status: "completed", Limit: 1}, {Status: "in_progress"}, {Status: "interrupted", WorkspaceID: "ws2"}, {After: "b"}} {
			if got, want := restarted.Turns(f), want.Turns(f); !jsonEqual(got, want) {
				rt.Fatalf("Turns(%+v): %v, full replay %v", f, got, want)
			}
		}
	})
}

// TestArchiveRefusals: a checkpoint naming another archive, or more old
// turns than the archive holds, is refused; a projector replaying from the
// start over an archive that holds turns refuses the first event. Each
// with its control.
func TestArchiveRefusals(t *testing.T) {
	// A history that archives a turn at least (two ended ones).
	archives := func(h *history) bool {
		ended := 0
		for _, g := range h.turns {
			if g.ended {
				ended++
			}
		}
		return ended >= 2
	}
	h := &history{turns: map[string]*genTurn{}}
	rapid.Check(t, func(rt *rapid.T) {
		if !archives(h) {
			h = drawHistory(rt)
		}
	})
	if !archives(h) {
		t.Fatal("no history with two ended turns drawn")
	}
	a := &diskArchive{memArchive: newMemArchive(), epoch: "e"}
	o := Options{RecentTurns: 1, Archive: a}
	p := replay(t, o, h.events)
	if a.Len() == 0 {
		t.Fatal("nothing archived")
	}
	cp, _, err := p.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	other := &diskArchive{memArchive: a.memArchive, epoch: "other"}
	if _, err := NewWith(Options{RecentTurns: 1, Archive: other}).Restore(cp, reader(h.events)); !errors.Is(err, ErrBadCheckpoint) {
		t.Errorf("another archive's checkpoint: %v, want ErrBadCheckpoint", err)
	}
	short := &diskArchive{memArchive: newMemArchive(), epoch: "e"}
	if _, err := NewWith(Options{RecentTurns: 1, Archive: short}).Restore(cp, reader(h.events)); !errors.Is(err, ErrBadCheckpoint) {
		t.Errorf("an archive holding fewer turns: %v, want ErrBadCheckpoint", err)
	}
	if err := NewWith(o).Apply(&h.events[0]); !errors.Is(err, ErrArchiveNotEmpty) {
		t.Errorf("a replay from the start over a full archive: %v, want ErrArchiveNotEmpty", err)
	}
	r := NewWith(o)
	if _, err := r.Restore(cp, reader(h.events)); err != nil {
		t.Fatalf("control: %v", err)
	}
	if exportJSON(t, r) != exportJSON(t, p) {
		t.Fatal("control: the restored projector differs")
	}
	if err := a.Reset(); err != nil {
		t.Fatal(err)
	}
	fresh := replay(t, o, h.events)
	if exportJSON(t, fresh) != exportJSON(t, p) {
		t.Fatal("control: a replay over the reset archive differs")
	}
}
