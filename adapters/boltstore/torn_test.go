package boltstore

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"turnstile/adapters/internal/embeddedtest"
	"turnstile/domain/eventstore"
)

// Offsets in a bbolt meta page (page 0 or 1): a 16-byte page header, then
// magic, version, pageSize, flags (4 each), the root bucket (16), the
// freelist and high-water page ids (8 each), txid and checksum (8 each).
const (
	metaPageSizeOff = 16 + 8
	metaTxidOff     = 16 + 16 + 16 + 16
)

// newestMeta returns the file offset of the meta page with the higher txid.
func newestMeta(t *testing.T, path string) int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pageSize := int64(binary.LittleEndian.Uint32(b[metaPageSizeOff:]))
	tx0 := binary.LittleEndian.Uint64(b[metaTxidOff:])
	tx1 := binary.LittleEndian.Uint64(b[pageSize+metaTxidOff:])
	if tx1 > tx0 {
		return pageSize
	}
	return 0
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestTornCommitIsNotServed simulates a crash in the middle of the last
// commit's final write: the meta page that would have published append B is
// half written. The reopened store must detect it (bbolt's meta checksum),
// serve the state before B — every event of the earlier, acknowledged
// append A, none of B — and accept new appends at B's revision that survive
// another reopen. The control opens an untorn copy of the same file and sees
// B, so the torn case does not pass because B was never written.
func TestTornCommitIsNotServed(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "events.db")
	const stream = "turn-torn"
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := embeddedtest.NewEvents(3)
	embeddedtest.MustAppend(t, s, stream, eventstore.NoStream(), a)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(path, Options{}); err != nil {
		t.Fatal(err)
	}
	b := embeddedtest.NewEvents(2)
	embeddedtest.MustAppend(t, s, stream, eventstore.Exactly(2), b)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	control := filepath.Join(dir, "control.db")
	copyFile(t, path, control)
	if s, err = Open(control, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := len(embeddedtest.MustReadAll(t, s)); got != 5 {
		t.Fatalf("control: %d events, want 5 (A and B)", got)
	}
	_ = s.Close()

	// Tear the meta page B's commit wrote: its second half never reached
	// the disk.
	off := newestMeta(t, path)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	garbage := make([]byte, 40)
	for i := range garbage {
		garbage[i] = 0xa5
	}
	if _, err := f.WriteAt(garbage, off+metaTxidOff-8); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()

	if s, err = Open(path, Options{}); err != nil {
		t.Fatalf("open after a torn commit: %v", err)
	}
	evs := embeddedtest.MustReadAll(t, s)
	if len(evs) != len(a) {
		t.Fatalf("after a torn commit: %d events served, want the %d of A only", len(evs), len(a))
	}
	for i, e := range evs {
		if e.ID != a[i].ID || e.Revision != uint64(i) || e.Position.Commit != uint64(i+1) {
			t.Fatalf("event %d: %+v, want A[%d]", i, e, i)
		}
	}
	if got, err := s.ReadStream(embeddedtest.Ctx(t), stream, 0, 0); err != nil || len(got) != len(a) {
		t.Fatalf("ReadStream after a torn commit: %d events, %v", len(got), err)
	}
	// B's revision and positions are free again, and the torn slot is
	// rewritten by the next commit.
	c := embeddedtest.NewEvents(1)
	res := embeddedtest.MustAppend(t, s, stream, eventstore.Exactly(2), c)
	if res.NextExpectedRevision != 3 || res.Position.Commit != 4 {
		t.Fatalf("append after a torn commit: %+v", res)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(path, Options{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	evs = embeddedtest.MustReadAll(t, s)
	if len(evs) != 4 || evs[3].ID != c[0].ID {
		t.Fatalf("after reopen: %d events, want A and the new append", len(evs))
	}
}
