package logstore

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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

// mountExt4 makes an ext4 file system of size bytes in a file, loop-mounts
// it on a fresh directory and unmounts it when the test ends.
func mountExt4(t *testing.T, size int64) string {
	t.Helper()
	img := filepath.Join(t.TempDir(), "fs.img")
	f, err := os.Create(img)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	if out, err := exec.Command("mkfs.ext4", "-q", "-F", img).CombinedOutput(); err != nil {
		t.Fatalf("mkfs.ext4: %v: %s", err, out)
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-o", "loop", img, dir).CombinedOutput(); err != nil {
		t.Fatalf("mount -o loop (the disk-full test needs root): %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// fillFile writes path until its file system has no space left, and syncs
// it so that the space is really taken.
func fillFile(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling the disk: %v", err)
			}
			break
		}
	}
	if err := f.Sync(); err != nil && !errors.Is(err, syscall.ENOSPC) {
		t.Fatal(err)
	}
}

// TestDiskFull fills a small file system, with the store's own appends on
// a tmpfs and with another process's file on a loop-mounted ext4. The append that
// does not fit fails with ErrUnavailable (the API's 503) naming ENOSPC and
// the store stays open; every acknowledged event is still served; once
// space returns, appends succeed in the same process; after a reopen nothing
// acknowledged is lost and the log has no gap. The appends before the
// failure are the control: the same append works while there is space.
func TestDiskFull(t *testing.T) {
	t.Run("fs=tmpfs/filled-by-the-store", func(t *testing.T) {
		dir, resize := mountTmpfs(t, 24<<20)
		diskFull(t, dir, Options{}, nil, func() { resize(64 << 20) })
	})
	t.Run("fs=tmpfs/filled-by-the-store/small-segments", func(t *testing.T) {
		dir, resize := mountTmpfs(t, 24<<20)
		diskFull(t, dir, Options{SegmentSize: 100 << 10}, nil, func() { resize(64 << 20) })
	})
	t.Run("fs=ext4/filled-by-another-process", func(t *testing.T) {
		dir := mountExt4(t, 32<<20)
		filler := filepath.Join(dir, "filler")
		diskFull(t, dir, Options{}, func() { fillFile(t, filler) }, func() {
			if err := os.Remove(filler); err != nil {
				t.Fatal(err)
			}
		})
	})
}

// diskFull runs the disk-full checks on a store in dir: fill (when not
// nil) takes the file system's remaining space after a few appends,
// otherwise the store's appends fill it; free gives space back.
func diskFull(t *testing.T, dir string, opts Options, fill, free func()) {
	path := filepath.Join(dir, "events")
	s, err := Open(path, opts)
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
	if fill != nil {
		for range 3 {
			if err := appendOne(); err != nil {
				t.Fatalf("append with space left: %v", err)
			}
			acked++
		}
		fill()
	}
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
	checkRolledBack(t, s)
	// Still full: still refused, still nothing half written.
	if err := appendOne(); !errors.Is(err, eventstore.ErrUnavailable) {
		t.Fatalf("second append on a full disk: %v", err)
	}
	check(s, acked)

	free()
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
	if s, err = Open(path, opts); err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	check(s, acked)
}

// checkRolledBack checks that the segment files hold exactly the committed
// frames: a failed write left nothing behind.
func checkRolledBack(t *testing.T, s *Store) {
	t.Helper()
	var total int64
	for _, seg := range s.segs {
		fi, err := seg.f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		total += fi.Size()
	}
	if uint64(total) != s.end {
		t.Fatalf("segments hold %d bytes, the committed log %d: the failed write was not rolled back", total, s.end)
	}
}
