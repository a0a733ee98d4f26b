package logstore

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/adapters/internal/embeddedtest"
	"turnstile/domain/eventstore"
)

// copyDir copies the files of a store directory (not LOCK) to a new one.
func copyDir(t *testing.T, from string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), "copy")
	if err := os.Mkdir(to, 0o700); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "LOCK" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return to
}

// logTo returns options whose logger writes to buf.
func logTo(buf *bytes.Buffer) Options {
	return Options{Logger: slog.New(slog.NewTextHandler(buf, nil))}
}

// tornFixture writes append A (3 events) and then a group commit B of
// several appends (one frame, size bytes long at offset frameOff of the
// only segment) and closes the store.
func tornFixture(t *testing.T) (dir string, a []eventstore.EventData, frameOff, frameLen int64) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "events")
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a = embeddedtest.NewEvents(3)
	embeddedtest.MustAppend(t, s, "turn-torn", eventstore.NoStream(), a)
	frameOff = int64(s.end)
	ctx := embeddedtest.Ctx(t)
	var reqs []*appendReq
	for i, exp := range []eventstore.ExpectedVersion{eventstore.Exactly(2), eventstore.NoStream(), eventstore.NoStream()} {
		evs := embeddedtest.NewEvents(2)
		for j := range evs {
			evs[j].Data = bytes.Repeat([]byte{byte('a' + i)}, 3000)
		}
		r, err := newAppendReq(ctx, []string{"turn-torn", "turn-b", "turn-c"}[i], exp, evs)
		if err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, r)
	}
	s.commitBatch(reqs, &frame{})
	for _, r := range reqs {
		if resp := <-r.done; resp.err != nil {
			t.Fatal(resp.err)
		}
	}
	frameLen = int64(s.end) - frameOff
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, a, frameOff, frameLen
}

// damage runs fn on the only segment file of dir.
func damage(t *testing.T, dir string, fn func(f *os.File)) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, segmentName(0)), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fn(f)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// checkOnlyA opens dir and checks it serves A and nothing of the torn
// group, that the truncation was logged, and that B's revision and
// positions are free again and stay taken after another reopen.
func checkOnlyA(t *testing.T, dir string, a []eventstore.EventData) {
	t.Helper()
	var logs bytes.Buffer
	s, err := Open(dir, logTo(&logs))
	if err != nil {
		t.Fatalf("open after a torn write: %v", err)
	}
	if !strings.Contains(logs.String(), "truncated a torn write") {
		t.Errorf("the truncation was not logged: %q", logs.String())
	}
	evs := embeddedtest.MustReadAll(t, s)
	if len(evs) != len(a) {
		t.Fatalf("after a torn write: %d events served, want the %d of A only", len(evs), len(a))
	}
	for i, e := range evs {
		if e.ID != a[i].ID || e.Revision != uint64(i) || e.Position.Commit != uint64(i+1) {
			t.Fatalf("event %d: %+v, want A[%d]", i, e, i)
		}
	}
	for _, stream := range []string{"turn-b", "turn-c"} {
		if got, err := s.ReadStream(embeddedtest.Ctx(t), stream, 0, 0); err != nil || len(got) != 0 {
			t.Fatalf("ReadStream(%s) after a torn write: %d events, %v", stream, len(got), err)
		}
	}
	c := embeddedtest.NewEvents(1)
	if res := embeddedtest.MustAppend(t, s, "turn-torn", eventstore.Exactly(2), c); res.NextExpectedRevision != 3 || res.Position.Commit != 4 {
		t.Fatalf("append after a torn write: %+v", res)
	}
	embeddedtest.MustAppend(t, s, "turn-b", eventstore.NoStream(), embeddedtest.NewEvents(1))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	logs.Reset()
	if s, err = Open(dir, logTo(&logs)); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if logs.Len() != 0 {
		t.Errorf("second reopen logged: %q", logs.String())
	}
	if evs = embeddedtest.MustReadAll(t, s); len(evs) != 5 || evs[3].ID != c[0].ID {
		t.Fatalf("after reopen: %d events, want A and the two new appends", len(evs))
	}
}

// TestTornWriteIsTruncated simulates crashes in the middle of a group
// commit's write (never acknowledged: the fdatasync had not returned): the
// write stopped short, a page in the middle of the group never reached the
// disk (the records after it did), or the file grew but its new blocks are
// zeros. Each reopened store detects it, logs the truncation, serves A and
// nothing of the group, and takes new appends at the group's revisions. The
// control opens an undamaged copy and sees the whole group.
func TestTornWriteIsTruncated(t *testing.T) {
	for name, tear := range map[string]func(f *os.File, off, n int64){
		"short write": func(f *os.File, off, n int64) {
			if err := f.Truncate(off + n/2); err != nil {
				t.Fatal(err)
			}
		},
		"header only": func(f *os.File, off, n int64) {
			if err := f.Truncate(off + frameHeaderSize); err != nil {
				t.Fatal(err)
			}
		},
		"page missing in the middle of the group": func(f *os.File, off, n int64) {
			if _, err := f.WriteAt(make([]byte, 4096), off+n/2-2048); err != nil {
				t.Fatal(err)
			}
		},
		"zeros instead of the group": func(f *os.File, off, n int64) {
			if _, err := f.WriteAt(make([]byte, n), off); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir, a, off, n := tornFixture(t)
			control := copyDir(t, dir)
			s, err := Open(control, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(embeddedtest.MustReadAll(t, s)); got != 9 {
				t.Fatalf("control: %d events, want 9 (A and the group)", got)
			}
			s.Close()
			damage(t, dir, func(f *os.File) { tear(f, off, n) })
			checkOnlyA(t, dir, a)
		})
	}
}

// TestCorruptionIsRefused: a bad frame followed by a valid one, or a bad
// frame in a segment that is not the last, was acknowledged once and is
// not a torn write. Without an index checkpoint Open scans it and refuses
// with ErrCorrupt, truncating nothing (a second Open still refuses, the
// file is unchanged); with a checkpoint Open does not read that far back,
// but a read of the damaged record fails with ErrCorrupt instead of serving
// it, while undamaged records are still served. The control damages the
// last frame the same way, which is a torn write.
func TestCorruptionIsRefused(t *testing.T) {
	t.Run("bad frame before a valid one", func(t *testing.T) {
		dir, _, off, _ := tornFixture(t)
		// Flip a byte of A's frame (offset 0), B's frame is intact.
		damage(t, dir, func(f *os.File) { flipByte(t, f, off/2) })

		s, err := Open(dir, Options{})
		if err != nil {
			t.Fatalf("Open with a checkpoint: %v", err)
		}
		if s.fromCheckpoint == 0 {
			t.Fatal("Open did not use the checkpoint")
		}
		if _, err := s.ReadStream(embeddedtest.Ctx(t), "turn-torn", 0, 0); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("ReadStream of the damaged record: %v, want ErrCorrupt", err)
		}
		if _, err := s.ReadAll(embeddedtest.Ctx(t), eventstore.Start, 0); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("ReadAll over the damaged record: %v, want ErrCorrupt", err)
		}
		if evs, err := s.ReadStream(embeddedtest.Ctx(t), "turn-b", 0, 0); err != nil || len(evs) != 2 {
			t.Fatalf("ReadStream of an undamaged stream: %d events, %v", len(evs), err)
		}
		s.Close()

		if err := os.Remove(filepath.Join(dir, checkpointName)); err != nil {
			t.Fatal(err)
		}
		before := readSegment(t, dir, 0)
		for range 2 {
			if s, err := Open(dir, Options{}); !errors.Is(err, ErrCorrupt) {
				if err == nil {
					s.Close()
				}
				t.Fatalf("Open: %v, want ErrCorrupt", err)
			} else if !strings.Contains(err.Error(), "a valid frame follows") {
				t.Fatalf("Open: %v; want the reason named", err)
			}
		}
		if !bytes.Equal(before, readSegment(t, dir, 0)) {
			t.Fatal("a refused Open changed the segment")
		}
	})
	t.Run("control: bad last frame", func(t *testing.T) {
		dir, a, off, n := tornFixture(t)
		damage(t, dir, func(f *os.File) { flipByte(t, f, off+n/2) })
		checkOnlyA(t, dir, a)
	})
	t.Run("bad frame in an earlier segment", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "events")
		s, err := Open(dir, Options{SegmentSize: 1024})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 6 {
			embeddedtest.MustAppend(t, s, "turn-seg", expectAfter(i), []eventstore.EventData{{ID: embeddedtest.NewEvents(1)[0].ID, Type: "t", Data: make([]byte, 700)}})
		}
		last := s.segs[len(s.segs)-1].base
		s.Close()
		bases, err := listSegments(dir)
		if err != nil || len(bases) != 6 {
			t.Fatalf("%d segments (%v), want 6", len(bases), err)
		}
		// The control: the same damage to the last segment's only frame is
		// a torn write.
		control := copyDir(t, dir)
		f, err := os.OpenFile(filepath.Join(control, segmentName(last)), os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		flipByte(t, f, 100)
		f.Close()
		if s, err := Open(control, Options{}); err != nil {
			t.Fatalf("control: %v", err)
		} else if got := len(embeddedtest.MustReadAll(t, s)); got != 5 {
			t.Fatalf("control: %d events, want 5", got)
		} else {
			s.Close()
		}
		damage(t, dir, func(f *os.File) { flipByte(t, f, 100) })
		if err := os.Remove(filepath.Join(dir, checkpointName)); err != nil {
			t.Fatal(err)
		}
		if s, err := Open(dir, Options{}); !errors.Is(err, ErrCorrupt) {
			if err == nil {
				s.Close()
			}
			t.Fatalf("Open: %v, want ErrCorrupt", err)
		}
	})
}

func expectAfter(n int) eventstore.ExpectedVersion {
	if n == 0 {
		return eventstore.NoStream()
	}
	return eventstore.Exactly(uint64(n - 1))
}

func flipByte(t *testing.T, f *os.File, off int64) {
	t.Helper()
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, off); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0x20
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

func readSegment(t *testing.T, dir string, base uint64) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, segmentName(base)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
