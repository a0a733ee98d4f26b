package sandbox

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestFifoInFanoutOfNewGitDirRemoved: an earlier command fills a directory
// that is no git dir yet (refs and an object store, no HEAD) with a FIFO
// at a loose object's name; a later command only adds HEAD, making it a
// git dir whose loose-object directory did not change during that command.
// The FIFO would block the person's git reading that object for ever; the
// check of a server's later walk looks into every loose-object directory of
// a git dir it did not find before, and removes it (the
// hundred-and-twenty-fourth review left it). Control: the same FIFO beside,
// outside any git dir, stays (it is no git's).
func TestFifoInFanoutOfNewGitDirRemoved(t *testing.T) {
	ws, _, s := attack122GitSetup(t)
	r := sh(t, s, `mkdir -p stage/refs/heads stage/objects/ab other && mkfifo stage/objects/ab/cdef0123456789 && mkfifo other/pipe && echo made`)
	if !strings.Contains(string(r.Stdout), "made") {
		t.Fatalf("premise: %s %s", r.Stdout, r.Stderr)
	}
	if len(r.Quarantined) > 0 {
		t.Fatalf("premise: the first command's plant was already caught: %+v", r.Quarantined)
	}
	clockPast(t, ws+"/stage/objects/ab")
	r = sh(t, s, `echo 'ref: refs/heads/main' > stage/HEAD && echo headed`)
	if !strings.Contains(string(r.Stdout), "headed") {
		t.Fatalf("premise: %s %s", r.Stdout, r.Stderr)
	}
	var st unix.Stat_t
	if unix.Lstat(ws+"/stage/objects/ab/cdef0123456789", &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFIFO {
		t.Errorf("a FIFO at a loose object's name in a directory made a git dir by a HEAD added later stayed (quarantined %+v)", r.Quarantined)
	}
	if _, err := os.Lstat(ws + "/other/pipe"); err != nil {
		t.Errorf("control: a FIFO outside any git dir: %v", err)
	}
}
