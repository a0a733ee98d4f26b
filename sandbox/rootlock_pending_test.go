package sandbox

import (
	"context"
	"os"
	"testing"
	"time"
)

// TestPendingMarkerCarriesAnUncheckedStart: a command that took the roots'
// lock and started (MarkStarted) but whose check never ran (no Checked:
// its process was killed) leaves its start to the next holder of the
// lock (Since), who keeps the earliest start until its own check has run;
// a command whose check ran leaves nothing. A marker that is a symlink or
// another user's is not read.
func TestPendingMarkerCarriesAnUncheckedStart(t *testing.T) {
	root := t.TempDir()
	lock := func() *RootLock {
		t.Helper()
		l, err := lockRoots(context.Background(), []string{root})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	l := lock()
	if !l.Since().IsZero() {
		t.Fatalf("a fresh root has an unchecked start: %v", l.Since())
	}
	killed := time.Unix(1_700_000_000, 0)
	l.MarkStarted(killed)
	l.Release() // killed: no Checked
	l = lock()
	if got := l.Since(); !got.Equal(killed) {
		t.Fatalf("the next holder's Since = %v, want the killed command's start %v", got, killed)
	}
	l.MarkStarted(time.Now()) // keeps the earlier start
	l.Release()
	l = lock()
	if got := l.Since(); !got.Equal(killed) {
		t.Fatalf("after a second unchecked command, Since = %v, want the earliest start %v", got, killed)
	}
	l.MarkStarted(time.Now())
	l.Checked()
	l.Release()
	l = lock()
	if got := l.Since(); !got.IsZero() {
		t.Fatalf("after a checked command, Since = %v, want zero", got)
	}
	markers := l.pending
	l.Release()
	if len(markers) != 1 {
		t.Fatalf("markers %v, want one (one exclusive root)", markers)
	}
	// A symlink at the marker's name, and a marker of another user, are
	// not read.
	other := t.TempDir() + "/m"
	if err := os.WriteFile(other, []byte("1700000000000000000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, markers[0]); err != nil {
		t.Fatal(err)
	}
	if p := readPending(markers[0]); !p.IsZero() {
		t.Errorf("a symlinked marker was read: %v", p)
	}
	os.Remove(markers[0])
	if err := os.WriteFile(markers[0], []byte("1700000000000000000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if p := readPending(markers[0]); p.IsZero() {
		t.Errorf("control: the user's own marker was not read")
	}
	if err := os.Chown(markers[0], os.Geteuid()+4242, -1); err == nil {
		if p := readPending(markers[0]); !p.IsZero() {
			t.Errorf("another user's marker was read: %v", p)
		}
	}
	os.Remove(markers[0])
}
