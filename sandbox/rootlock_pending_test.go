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

// TestBelowMarkersReachTheEnclosingRoot: a killed command over ws/sub is
// caught up by the next command over ws (which removes its markers once
// checked, at every directory above it); a killed command over ws is not
// by the next over ws/sub, which leaves ws's marker to ws's next holder.
// A checked command leaves no marker anywhere.
func TestBelowMarkersReachTheEnclosingRoot(t *testing.T) {
	ws := t.TempDir()
	sub := ws + "/sub"
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := rootLockDir()
	if err != nil {
		t.Fatal(err)
	}
	lock := func(root string) *RootLock {
		t.Helper()
		l, err := lockRoots(context.Background(), []string{root})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	left := func() []string {
		var out []string
		for _, m := range []string{pendingMarker(lockFileName(dir, sub)), pendingMarker(lockFileName(dir, ws)),
			belowMarker(dir, ws, sub), belowMarker(dir, "/", sub), belowMarker(dir, "/", ws)} {
			if _, err := os.Lstat(m); err == nil {
				out = append(out, m)
			}
		}
		return out
	}
	t1 := time.Unix(1_700_000_000, 0)
	l := lock(sub)
	l.MarkStarted(t1)
	l.Release() // killed over ws/sub
	if len(left()) != 3 {
		t.Fatalf("the killed command left %v", left())
	}
	l = lock(ws)
	if got := l.Below(); len(got) != 1 || got[0].Root != sub || !got[0].Since.Equal(t1) {
		t.Fatalf("the next holder of ws: Below = %v, want the killed command's root ws/sub from its start %v", got, t1)
	}
	if got := l.Since(); !got.IsZero() {
		// ws/sub is checked from t1 on its own (catchUpBelow), not the
		// whole of ws.
		t.Fatalf("the next holder of ws: Since = %v, want zero (no command over ws itself was killed)", got)
	}
	l.MarkStarted(time.Now())
	l.Checked()
	l.Release()
	if m := left(); len(m) != 0 {
		t.Fatalf("after the check over ws, markers are left: %v", m)
	}
	t2 := time.Unix(1_700_000_100, 0)
	l = lock(ws)
	l.MarkStarted(t2)
	l.Release() // killed over ws
	l = lock(sub)
	if got := l.Since(); !got.IsZero() {
		t.Fatalf("a holder of ws/sub: Since = %v, want none (ws's marker is ws's next holder's)", got)
	}
	l.MarkStarted(time.Now())
	l.Checked()
	l.Release()
	if m := left(); len(m) != 2 {
		t.Fatalf("after the check over ws/sub: %v, want ws's own marker and its marker at / (ws's next holder removes them)", m)
	}
	l = lock(ws)
	if got := l.Since(); !got.Equal(t2) {
		t.Fatalf("ws's next holder: Since = %v, want %v", got, t2)
	}
	l.Checked()
	l.Release()
	if m := left(); len(m) != 0 {
		t.Fatalf("markers left: %v", m)
	}
}
