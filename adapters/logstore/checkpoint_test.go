package logstore

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/adapters/internal/embeddedtest"
	"turnstile/domain/eventstore"
)

// checkpointFixture writes 3 streams of 10 events in appends of 2 with
// segments of 2 KiB (so the log spans many) and returns the open store and
// every event as ReadAll returns it.
func checkpointFixture(t *testing.T, opts Options) (*Store, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "events")
	opts.SegmentSize = 2 << 10
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	appendRounds(t, s, 0, 5)
	return s, dir
}

// appendRounds appends rounds [from, to) of 2 events to each of 3 streams.
func appendRounds(t *testing.T, s *Store, from, to int) {
	t.Helper()
	for r := from; r < to; r++ {
		for i := range 3 {
			evs := embeddedtest.NewEvents(2)
			for j := range evs {
				evs[j].Data = bytes.Repeat([]byte{'x'}, 300)
			}
			embeddedtest.MustAppend(t, s, fmt.Sprintf("turn-%d", i), expectAfter(2*r), evs)
		}
	}
}

// sameLog checks that s serves exactly want, by ReadAll and by ReadStream,
// and that a retry of the last append of each stream is recognised.
func sameLog(t *testing.T, s *Store, want []eventstore.RecordedEvent) {
	t.Helper()
	got := embeddedtest.MustReadAll(t, s)
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d", len(got), len(want))
	}
	byStream := map[string][]eventstore.RecordedEvent{}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Position != want[i].Position || got[i].Revision != want[i].Revision || !bytes.Equal(got[i].Data, want[i].Data) {
			t.Fatalf("event %d: %+v, want %+v", i, got[i], want[i])
		}
		byStream[want[i].Stream] = append(byStream[want[i].Stream], want[i])
	}
	for stream, evs := range byStream {
		read, err := s.ReadStream(embeddedtest.Ctx(t), stream, 0, 0)
		if err != nil || len(read) != len(evs) {
			t.Fatalf("ReadStream(%s): %d events, %v; want %d", stream, len(read), err, len(evs))
		}
		n := len(evs)
		retry := []eventstore.EventData{{ID: evs[n-2].ID, Type: "test.event", Data: evs[n-2].Data}, {ID: evs[n-1].ID, Type: "test.event", Data: evs[n-1].Data}}
		if res := embeddedtest.MustAppend(t, s, stream, eventstore.Exactly(uint64(n-3)), retry); res.Position != evs[n-1].Position {
			t.Fatalf("retry on %s: %+v, want the original position %s", stream, res, evs[n-1].Position)
		}
	}
}

// TestCheckpointOpen: a store closed cleanly writes a checkpoint and the
// next Open takes the index from it (not from a scan) and serves the same
// log; a checkpoint written in the background while appends went on
// (the process then killed: no checkpoint at Close) is loaded and the log
// after it is scanned, across segment rolls. The control reopens with the
// checkpoint removed: a full scan serves the same log.
func TestCheckpointOpen(t *testing.T) {
	s, dir := checkpointFixture(t, Options{CheckpointEvery: 1 << 30})
	if err := s.writeCheckpoint(); err != nil {
		t.Fatal(err)
	}
	appendRounds(t, s, 5, 10) // after the checkpoint, into new segments
	want := embeddedtest.MustReadAll(t, s)
	crashed := copyDir(t, dir) // as if killed here: no checkpoint at Close
	control := copyDir(t, dir)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	for name, d := range map[string]string{"closed": dir, "killed": crashed} {
		t.Run(name, func(t *testing.T) {
			var logs bytes.Buffer
			s, err := Open(d, logTo(&logs))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.fromCheckpoint == 0 || logs.Len() != 0 {
				t.Fatalf("Open did not use the checkpoint (%d segments from it); logs: %s", s.fromCheckpoint, logs.String())
			}
			if name == "killed" && s.fromCheckpoint == len(s.segs) {
				t.Fatal("the checkpoint covered every segment: the tail scan was not exercised")
			}
			sameLog(t, s, want)
			appendRounds(t, s, 10, 11)
		})
	}
	t.Run("control: no checkpoint", func(t *testing.T) {
		d := control
		if err := os.Remove(filepath.Join(d, checkpointName)); err != nil {
			t.Fatal(err)
		}
		s, err := Open(d, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if s.fromCheckpoint != 0 {
			t.Fatal("Open used a checkpoint that was removed")
		}
		sameLog(t, s, want)
	})
}

// TestCheckpointNotTrusted: a checkpoint that is torn or damaged, belongs to
// another log of the same length, or is ahead of the log (the log restored
// from an older copy) is discarded with a warning and the index is rebuilt
// by a full scan, which serves the log as it is.
func TestCheckpointNotTrusted(t *testing.T) {
	s, dir := checkpointFixture(t, Options{})
	want := embeddedtest.MustReadAll(t, s)
	older := copyDir(t, dir) // the log before the last rounds, no checkpoint
	appendRounds(t, s, 5, 6)
	wantNewer := embeddedtest.MustReadAll(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	other, otherDir := checkpointFixture(t, Options{})
	appendRounds(t, other, 5, 6)
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(filepath.Join(dir, checkpointName))
	if err != nil {
		t.Fatal(err)
	}
	otherIndex, err := os.ReadFile(filepath.Join(otherDir, checkpointName))
	if err != nil {
		t.Fatal(err)
	}
	flipped := bytes.Clone(index)
	flipped[len(flipped)/2] ^= 1
	for name, c := range map[string]struct {
		dir   string
		index []byte
		want  []eventstore.RecordedEvent
	}{
		"torn":             {dir, index[:len(index)/2], wantNewer},
		"damaged":          {dir, flipped, wantNewer},
		"another log's":    {dir, otherIndex, wantNewer},
		"ahead of the log": {older, index, want},
	} {
		t.Run(name, func(t *testing.T) {
			d := copyDir(t, c.dir)
			if err := os.WriteFile(filepath.Join(d, checkpointName), c.index, 0o600); err != nil {
				t.Fatal(err)
			}
			var logs bytes.Buffer
			s, err := Open(d, logTo(&logs))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.fromCheckpoint != 0 || !strings.Contains(logs.String(), "index checkpoint discarded") {
				t.Fatalf("the checkpoint was trusted (%d segments); logs: %s", s.fromCheckpoint, logs.String())
			}
			sameLog(t, s, c.want)
		})
	}
}
