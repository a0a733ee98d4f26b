package embeddedtest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"turnstile/domain/eventstore"
	"turnstile/internal/scratchfs"
)

// Variant is the store opened another way than Kind.Open.
type Variant struct {
	Name string
	Open func(path string) (Store, error)
}

// DiskFull fills a small file system, with the store's own appends on a
// tmpfs and with another process's file on a loop-mounted ext4. The append
// that does not fit fails with ErrUnavailable (the API's 503) naming ENOSPC
// and the store stays open; every acknowledged event is still served; once
// space returns, appends succeed in the same process; after a reopen
// nothing acknowledged is lost and the log has no gap. The appends before
// the failure are the control: the same append works while there is space.
//
// rolledBack, when set, checks the store's files right after a refused
// append: nothing half written remains. Each variant runs again on a tmpfs
// filled by the store's appends.
func DiskFull(t *testing.T, k Kind, rolledBack func(*testing.T, Store), variants ...Variant) {
	t.Run("fs=tmpfs/filled-by-the-store", func(t *testing.T) {
		dir, resize := scratchfs.Tmpfs(t, 24<<20)
		diskFull(t, filepath.Join(dir, k.File), k.Open, rolledBack, nil, func() { resize(64 << 20) })
	})
	for _, v := range variants {
		t.Run("fs=tmpfs/filled-by-the-store/"+v.Name, func(t *testing.T) {
			dir, resize := scratchfs.Tmpfs(t, 24<<20)
			diskFull(t, filepath.Join(dir, k.File), v.Open, rolledBack, nil, func() { resize(64 << 20) })
		})
	}
	t.Run("fs=ext4/filled-by-another-process", func(t *testing.T) {
		dir := scratchfs.Ext4(t, 32<<20)
		filler := filepath.Join(dir, "filler")
		diskFull(t, filepath.Join(dir, k.File), k.Open, rolledBack, func() { scratchfs.Fill(t, filler) }, func() {
			if err := os.Remove(filler); err != nil {
				t.Fatal(err)
			}
		})
	})
}

// diskFull runs the disk-full checks on the store at path: fill (when not
// nil) takes the file system's remaining space after a few appends,
// otherwise the store's appends fill it; free gives space back.
func diskFull(t *testing.T, path string, open func(string) (Store, error), rolledBack func(*testing.T, Store), fill, free func()) {
	s, err := open(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := Ctx(t)
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
	check := func(s Store, want int) {
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
	if rolledBack != nil {
		rolledBack(t, s)
	}
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
	if s, err = open(path); err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	check(s, acked)
}
