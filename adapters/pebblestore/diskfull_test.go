package pebblestore

import (
	"errors"
	"fmt"
	"os"
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
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput(); err != nil {
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

// TestDiskFull fills a small file system with appends from each candidate
// store, then checks: the failing append is refused with ErrUnavailable
// (the API's 503) and the process survives; every acknowledged event is
// still there; once space returns, appends succeed again in the same
// process; and after a reopen nothing acknowledged is lost.
func TestDiskFull(t *testing.T) {
	for i, c := range candidates {
		t.Run("store="+c.name, func(t *testing.T) {
			dir, resize := mountTmpfs(t, 24<<20)
			s, err := c.open(dir)
			if err != nil {
				t.Fatal(err)
			}
			ctx := testCtx(t)
			stream := "turn-full-" + uuid.NewString()
			payload := make([]byte, 8<<10)
			acked := 0
			var failure error
			for n := 0; n < 100_000; n++ {
				exp := eventstore.NoStream()
				if acked > 0 {
					exp = eventstore.Exactly(uint64(acked - 1))
				}
				ev := eventstore.EventData{ID: uuid.New(), Type: "full.event", Data: payload}
				if _, err := s.Append(ctx, stream, exp, []eventstore.EventData{ev}); err != nil {
					failure = err
					break
				}
				acked++
			}
			if failure == nil {
				t.Fatalf("%d appends of 8 KiB fitted in 24 MiB", acked)
			}
			if !errors.Is(failure, eventstore.ErrUnavailable) {
				t.Fatalf("append on a full disk: %v; want ErrUnavailable (503)", failure)
			}
			if !strings.Contains(failure.Error(), "no space left") {
				t.Errorf("append on a full disk: %v; want the ENOSPC named", failure)
			}
			t.Logf("%d events acknowledged before: %v", acked, failure)
			check := func(s benchStore, want int) {
				t.Helper()
				evs, err := s.ReadStream(ctx, stream, 0, 0)
				if err != nil {
					t.Fatal(err)
				}
				if len(evs) != want {
					t.Fatalf("%d events stored, %d acknowledged", len(evs), want)
				}
			}
			check(s, acked)
			resize(256 << 20)
			for range 5 {
				ev := eventstore.EventData{ID: uuid.New(), Type: "full.event", Data: payload}
				if _, err := s.Append(ctx, stream, eventstore.Exactly(uint64(acked-1)), []eventstore.EventData{ev}); err != nil {
					t.Fatalf("append after space returned: %v", err)
				}
				acked++
			}
			check(s, acked)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			s, err = candidates[i].open(dir)
			if err != nil {
				t.Fatalf("reopen: %v", err)
			}
			defer s.Close()
			check(s, acked)
		})
	}
}

var _ = os.Getpid
var _ = filepath.Join
