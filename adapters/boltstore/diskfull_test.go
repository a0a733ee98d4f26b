package boltstore

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"turnstile/domain/eventstore"
)

// mountTmpfs mounts a tmpfs of size bytes on a fresh directory and unmounts
// it when the test ends. resize changes its size.
func mountTmpfs(t *testing.T, size int) (dir string, resize func(int)) {
	t.Helper()
	dir = t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d,mode=0700", size), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Fatalf("mount tmpfs (the disk-full test needs root): %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir, func(size int) {
		t.Helper()
		if out, err := exec.Command("mount", "-o", fmt.Sprintf("remount,size=%d", size), dir).CombinedOutput(); err != nil {
			t.Fatalf("remount tmpfs: %v: %s", err, out)
		}
	}
}

// TestDiskFull fills a small file system with appends. The append that
// does not fit fails with ErrUnavailable (the API's 503) naming ENOSPC and
// the store stays open; every acknowledged event is still served; once
// space returns, appends succeed in the same process; after a reopen nothing
// acknowledged is lost and the log has no gap. The appends before the
// failure are the control: the same append works while there is space.
func TestDiskFull(t *testing.T) {
	dir, resize := mountTmpfs(t, 24<<20)
	path := filepath.Join(dir, "events.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	stream := "turn-full-" + uuid.NewString()
	payload := make([]byte, 8<<10)
	appendOne := func() error {
		exp := eventstore.NoStream()
		if n := s.Stats().Events; n > 0 {
			exp = eventstore.Exactly(n - 1)
		}
		_, err := s.Append(ctx, stream, exp, []eventstore.EventData{{ID: uuid.New(), Type: "full.event", Data: payload}})
		return err
	}
	acked := 0
	var failure error
	for range 100_000 {
		if failure = appendOne(); failure != nil {
			break
		}
		acked++
	}
	switch {
	case failure == nil:
		t.Fatalf("%d appends of 8 KiB fitted in 24 MiB", acked)
	case acked == 0:
		t.Fatalf("no append fitted: %v", failure)
	case !errors.Is(failure, eventstore.ErrUnavailable):
		t.Fatalf("append on a full disk: %v; want ErrUnavailable (503)", failure)
	case !strings.Contains(failure.Error(), "no space left"):
		t.Fatalf("append on a full disk: %v; want ENOSPC named", failure)
	}
	t.Logf("%d events acknowledged, then: %v", acked, failure)
	check := func(s *Store, want int) {
		t.Helper()
		evs, err := s.ReadStream(ctx, stream, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != want {
			t.Fatalf("%d events stored, %d acknowledged", len(evs), want)
		}
		for i, e := range evs {
			if e.Revision != uint64(i) || e.Position.Commit != uint64(i+1) {
				t.Fatalf("event %d: revision %d position %s", i, e.Revision, e.Position)
			}
		}
	}
	check(s, acked)
	// Still full: still refused, still nothing half written.
	if err := appendOne(); !errors.Is(err, eventstore.ErrUnavailable) {
		t.Fatalf("second append on a full disk: %v", err)
	}
	check(s, acked)

	resize(64 << 20)
	for range 5 {
		if err := appendOne(); err != nil {
			t.Fatalf("append after space returned: %v", err)
		}
		acked++
	}
	check(s, acked)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(path, Options{}); err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	check(s, acked)
}
