package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// TestAttack103_DecisionScanOpensFIFO (hundred-and-third review): a
// recursive read decision (grep_files, a listing) of a tree under a
// profile with a glob deny is scanned in the server's one decision-scan
// slot (resolve.go decisionScans: one scan at a time for the whole
// process, every principal and workspace). The scan (globmask.go
// globMaskScan → readDirBounded) lists each directory, and walks each
// entry the listing typed a directory by opening it with os.Open: no
// O_DIRECTORY, no O_NONBLOCK, and the name looked up again. The agent's
// command, still running in the same tree (a long exec of its turn, or
// one of another turn on the same workspace), replaces a directory by a
// FIFO between the listing and the open: the scan blocks in open(2) for
// good, holding the slot. Every other decision scan of the server, any
// principal's, then waits maxScanWait (20 s) and is refused ("busy"), and
// the blocked one never answers; the slot never comes back until the
// server restarts (or a writer opens the FIFO).
//
// The window is between the listing of a directory and the walk reaching
// one of its entries: after the entries sorted before it are walked, so
// the agent widens it at will (here 1,500 sibling directories before the
// one swapped). The test swaps once the scan has closed the listing of
// src (an inotify close event, after the scan took the slot: the test's
// scanEntered hook); the agent instead swaps in a loop.
//
// Root cause: sandbox/globmask.go readDirBounded (and the walk's top,
// os.Stat then walk) opens a path by name after it was typed from a
// listing, with a blocking open that follows and accepts any type.
//
// Fix: open each directory relative to its parent's descriptor with
// O_RDONLY|O_DIRECTORY|O_NOFOLLOW|O_NONBLOCK|O_CLOEXEC (openat), as the
// check after a command does (plantwalk.go), so that what is opened is
// what was listed, and a FIFO or symlink swapped in fails at once.
//
// Control: the same grep of the same tree, with nothing swapped, is
// allowed.
func TestAttack103_DecisionScanOpensFIFO(t *testing.T) {
	deny := map[string]domain.Access{"**/*.env": domain.AccessDeny}
	mk := func() string {
		ws := tempWorkspace(t)
		for i := range 1500 {
			if err := os.MkdirAll(filepath.Join(ws, "src", fmt.Sprintf("a%04d", i)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.MkdirAll(filepath.Join(ws, "src", "zz"), 0o755); err != nil {
			t.Fatal(err)
		}
		return ws
	}
	grep := func(s *domain.TurnExecutionSecuritySnapshot, p string) error {
		_, err := DecisionChecker{}.ResolveFile(s, p, domain.AccessRead, true)
		return err
	}

	// Control.
	ws := mk()
	s := profileSnapshot(t, ws, deny)
	if err := grep(&s, filepath.Join(ws, "src")); err != nil {
		t.Fatalf("control: the grep of src is refused: %v", err)
	}

	// Attack.
	ws = mk()
	s = profileSnapshot(t, ws, deny)
	src, zz := filepath.Join(ws, "src"), filepath.Join(ws, "src", "zz")
	in, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(in)
	if _, err := unix.InotifyAddWatch(in, src, unix.IN_CLOSE_NOWRITE); err != nil {
		t.Fatal(err)
	}
	slot := holdScanSlot(t)
	maxScanWait = time.Minute
	done := make(chan struct{})
	var grepErr error
	go func() { defer close(done); grepErr = grep(&s, src) }()
	slot.wait(slot.entered, "the scan taking the slot")
	// Events so far are not the scan's: drain them, then let it run.
	drain(t, in)
	slot.proceed <- struct{}{}
	// The scan lists src and closes it: wait for that close (of src
	// itself, not an entry: the event names nothing).
	buf := make([]byte, 64<<10)
	for listed := false; !listed; {
		n, err := unix.Read(in, buf)
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			if ev.Len == 0 {
				listed = true
			}
			off += unix.SizeofInotifyEvent + int(ev.Len)
		}
	}
	if err := os.Remove(zz); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(zz, 0o644); err != nil {
		t.Fatal(err)
	}
	if readerOpened(t, zz, done) {
		t.Errorf("the decision scan of %s (the server's one scan slot) opened the FIFO %s swapped in for a directory it had listed, "+
			"and stayed blocked in open(2) until the test opened its write end: without one it holds the slot for good (result once released: %v)", src, zz, grepErr)
	} else {
		t.Logf("the scan did not open the FIFO (result: %v)", grepErr)
	}
}

// drain reads what the inotify instance in holds now, without waiting.
func drain(t *testing.T, in int) {
	t.Helper()
	if err := unix.SetNonblock(in, true); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	for {
		if _, err := unix.Read(in, buf); err != nil {
			break
		}
	}
	if err := unix.SetNonblock(in, false); err != nil {
		t.Fatal(err)
	}
}
