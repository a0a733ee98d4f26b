package logstore

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"

	"turnstile/adapters/internal/embeddedtest"
	"turnstile/domain/eventstore"
)

// TestFailedFsyncStopsTheStore makes one fdatasync fail (as EIO from a
// dying disk would). That append fails with ErrUnavailable and so does every
// later one, although fdatasync works again: after a failed fsync the kernel
// may have dropped the dirty pages, so nothing may be acknowledged until the
// log is re-read. Reads keep serving what was acknowledged; Ping reports the
// failure; a reopened store takes appends again. The appends before the
// failure are the control.
func TestFailedFsyncStopsTheStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "events")
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	ctx := embeddedtest.Ctx(t)
	a := embeddedtest.NewEvents(2)
	embeddedtest.MustAppend(t, s, "turn-f", eventstore.NoStream(), a)

	orig := fdatasync
	t.Cleanup(func() { fdatasync = orig })
	calls := 0
	fdatasync = func(seg *segment) error {
		calls++
		if calls == 1 {
			return syscall.EIO
		}
		return orig(seg)
	}
	_, err = s.Append(ctx, "turn-f", eventstore.Exactly(1), embeddedtest.NewEvents(1))
	if !errors.Is(err, eventstore.ErrUnavailable) || !errors.Is(err, syscall.EIO) {
		t.Fatalf("append whose fdatasync failed: %v; want ErrUnavailable naming EIO", err)
	}
	for range 2 {
		if _, err := s.Append(ctx, "turn-g", eventstore.NoStream(), embeddedtest.NewEvents(1)); !errors.Is(err, eventstore.ErrUnavailable) {
			t.Fatalf("append after a failed fdatasync: %v; want ErrUnavailable", err)
		}
	}
	if calls != 1 {
		t.Fatalf("fdatasync called %d times; a stopped store must not try again", calls)
	}
	if err := s.Ping(ctx); !errors.Is(err, eventstore.ErrUnavailable) {
		t.Fatalf("Ping after a failed fdatasync: %v", err)
	}
	if evs, err := s.ReadStream(ctx, "turn-f", 0, 0); err != nil || len(evs) != 2 {
		t.Fatalf("ReadStream after a failed fdatasync: %d events, %v; want the 2 acknowledged", len(evs), err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	evs, err := s.ReadStream(ctx, "turn-f", 0, 0)
	if err != nil || len(evs) < 2 || evs[0].ID != a[0].ID || evs[1].ID != a[1].ID {
		t.Fatalf("after reopen: %d events, %v", len(evs), err)
	}
	// The unacknowledged event may or may not be there: the next append
	// goes after whatever is.
	embeddedtest.MustAppend(t, s, "turn-f", eventstore.Exactly(uint64(len(evs)-1)), embeddedtest.NewEvents(1))
}
