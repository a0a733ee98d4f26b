package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestHoldRemovalNeverWaitsOnAFIFO: a held "commondir" replaced by a FIFO
// between removeHoldAt's stat and its open (another command running over
// the same root) is left alone at once; an open without O_NONBLOCK waited
// for a writer that never comes, and with it the release of every hold
// after it. Without the fix this test hangs until go test's timeout.
func TestHoldRemovalNeverWaitsOnAFIFO(t *testing.T) {
	dir := t.TempDir()
	hold := filepath.Join(dir, "commondir")
	if err := os.WriteFile(hold, []byte(".\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dfd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(dfd)
	swapped := false
	holdOpenHook = func(int, string) {
		if err := os.Remove(hold); err != nil {
			t.Error(err)
		}
		if err := unix.Mkfifo(hold, 0o644); err != nil {
			t.Error(err)
		}
		swapped = true
	}
	defer func() { holdOpenHook = nil }()
	removeHoldAt(dfd, "commondir")
	if !swapped {
		t.Fatal("the hook did not run: removeHoldAt no longer opens the held file")
	}
	var st unix.Stat_t
	if err := unix.Lstat(hold, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
		t.Errorf("the FIFO put in the hold's place was removed or changed: %v", err)
	}

	// Control: the hold as makeHold made it is removed, one naming another
	// directory is kept.
	holdOpenHook = nil
	os.Remove(hold)
	if err := os.WriteFile(hold, []byte(".\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	removeHoldAt(dfd, "commondir")
	if _, err := os.Lstat(hold); !os.IsNotExist(err) {
		t.Errorf("control: the hold makeHold made was not removed: %v", err)
	}
	if err := os.WriteFile(hold, []byte("../other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	removeHoldAt(dfd, "commondir")
	if _, err := os.Lstat(hold); err != nil {
		t.Errorf("control: a commondir naming another directory was removed: %v", err)
	}
}
