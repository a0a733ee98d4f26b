package boltstore

import (
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"

	"turnstile/adapters/internal/embeddedtest"
	"turnstile/domain/eventstore"
)

// TestOpenKeepsOlderLayout opens a data file as earlier versions wrote it
// (format turnstile-events/1 with the per-event "sid | tagID | event id →
// revision" index entries that are no longer written) and checks it keeps
// working in place, with no migration: every event is served, the stream's
// head is found past the id entries, an append continues the stream, and a
// retry is still recognised, and a stale expected version is still refused
// (so the append above is not accepted by accident).
func TestOpenKeepsOlderLayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const stream = "turn-old"
	first := embeddedtest.NewEvents(3)
	embeddedtest.MustAppend(t, s, stream, eventstore.NoStream(), first)
	embeddedtest.MustAppend(t, s, "turn-later", eventstore.NoStream(), embeddedtest.NewEvents(1))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Write the older entries as the previous writer did.
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		if got := string(tx.Bucket(bucketMeta).Get(keyFormat)); got != "turnstile-events/1" {
			t.Fatalf("format %q: an older file would no longer open", got)
		}
		sid, err := decodeU64(tx.Bucket(bucketStreams).Get([]byte(stream)))
		if err != nil {
			return err
		}
		for rev, ev := range first {
			if err := tx.Bucket(bucketIndex).Put(idKey(sid, ev.ID), u64(uint64(rev))); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = db.Close()

	if s, err = Open(path, Options{}); err != nil {
		t.Fatalf("open an older file: %v", err)
	}
	defer s.Close()
	ctx := embeddedtest.Ctx(t)
	evs, err := s.ReadStream(ctx, stream, 0, 0)
	if err != nil || len(evs) != 3 || evs[2].ID != first[2].ID {
		t.Fatalf("ReadStream on an older file: %d events, %v", len(evs), err)
	}
	if res := embeddedtest.MustAppend(t, s, stream, eventstore.Any(), first[2:]); res.NextExpectedRevision != 2 {
		t.Fatalf("retry of the last append on an older file: %+v", res)
	}
	more := embeddedtest.NewEvents(2)
	if res := embeddedtest.MustAppend(t, s, stream, eventstore.Exactly(2), more); res.NextExpectedRevision != 4 || res.Position.Commit != 6 {
		t.Fatalf("append on an older file: %+v", res)
	}
	if _, err := s.Append(ctx, stream, eventstore.Exactly(2), embeddedtest.NewEvents(1)); err == nil {
		t.Fatal("a stale expected version was accepted on an older file")
	}
	if got := len(embeddedtest.MustReadAll(t, s)); got != 6 {
		t.Fatalf("log has %d events, want 6", got)
	}
}
