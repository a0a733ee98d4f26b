package sandbox

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// TestAttack158_EnvrcLoopPatternsCostEveryView (review 158, medium: denial
// of service on the server's CPU). A .envrc below a writable root (one the
// command makes in a subdirectory: not the root's, so it stays) is read at
// every view build (walk → fsView.launchers → protectLauncherRefs), and
// each pattern its loops iterate (envrcWords: `for f in big/*q0`, braces
// expanded up to 64 values a word) is globbed by launcherRef with
// filepath.Glob, which opens, reads whole and sorts the pattern's
// directory each time: nothing groups the patterns of one directory,
// nothing dedups a pattern before its glob (launcherGlobAt's seen key comes
// after it), and nothing bounds their number but the 256 KiB of a file and
// the 16 MiB of all. On the review machine, with 20,000 names in big/, one
// 279-byte line (64 patterns) cost a view build 0.77 s, ten lines 8.3 s,
// a hundred lines (28 KB) 88 s; a view is built for every spawn and, past
// its one-second TTL, for the decisions of every turn over the root.
//
// Counted, not timed: the test watches big/ with inotify and counts its
// opens during one view build. 192 patterns over big/ open it 192 times;
// the fix (read a directory once for all patterns, or bound the patterns
// a view globs and refuse past it) keeps that to a few.
//
// Control: a .envrc with one loop over one pattern opens big/ (the count
// sees the glob), and the command's own files stay (it may make them).
func TestAttack158_EnvrcLoopPatternsCostEveryView(t *testing.T) {
	f := newPlantFixture(t)
	alts := make([]string, 64)
	for i := range alts {
		alts[i] = fmt.Sprintf("q%d", i)
	}
	line := "for f in big/*{" + strings.Join(alts, ",") + "}; do . \"$f\"; done"
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	// The command makes the shape: sub/big with 500 names, and
	// sub/.envrc with one loop (the control), then three lines of 64.
	r := sh(t, s, "mkdir -p sub/big && cd sub/big && for i in $(seq 500); do : > name-$i.txt; done && cd .. && "+
		"printf '%s\\n' 'for f in big/*q0; do . \"$f\"; done' > .envrc && echo done")
	if !strings.Contains(string(r.Stdout), "done") || !exists(f.ws+"/sub/.envrc") || !exists(f.ws+"/sub/big/name-500.txt") {
		t.Fatalf("premise: the command did not make sub/.envrc and sub/big: %d %s %s %+v", r.ExitCode, r.Stdout, r.Stderr, r.Quarantined)
	}
	opens := func() int {
		time.Sleep(walkTTL + 100*time.Millisecond) // the walk's cache: the next view walks afresh
		n := countDirOpens(t, f.ws+"/sub/big", func() { newFSView(&s.Sandbox.Filesystem) })
		return n
	}
	if n := opens(); n < 1 {
		t.Fatalf("control: a view build over sub/.envrc's one loop opened sub/big %d times (the count sees no glob)", n)
	} else {
		t.Logf("control: one pattern: sub/big opened %d times in one view build", n)
	}
	r = sh(t, s, "cd sub && for i in $(seq 3); do printf '%s\\n' '"+line+"'; done > .envrc && echo done")
	if !strings.Contains(string(r.Stdout), "done") || !exists(f.ws+"/sub/.envrc") {
		t.Fatalf("premise: the command did not write sub/.envrc: %d %s %+v", r.ExitCode, r.Stderr, r.Quarantined)
	}
	if n := opens(); n > 16 {
		t.Errorf("one view build read sub/big %d times for the 192 patterns of a 0.8 KB sub/.envrc the command wrote (each a glob reading and sorting the whole directory): every spawn and decision pays it", n)
	}
}

// countDirOpens returns how many times dir was opened while fn ran
// (inotify IN_OPEN, interleaved with IN_CLOSE_NOWRITE so that repeated
// opens are not merged into one event; the events are read after fn, from
// a non-blocking descriptor: a queue overflow counts as more than 16).
func countDirOpens(t *testing.T, dir string, fn func()) int {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_OPEN|unix.IN_CLOSE_NOWRITE); err != nil {
		t.Fatal(err)
	}
	fn()
	n := 0
	buf := make([]byte, 1<<16)
	for {
		k, err := unix.Read(fd, buf)
		if err != nil || k <= 0 {
			return n
		}
		for off := 0; off+unix.SizeofInotifyEvent <= k; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				n += 1 << 20
			}
			if ev.Mask&unix.IN_OPEN != 0 && ev.Len == 0 {
				n++
			}
			off += unix.SizeofInotifyEvent + int(ev.Len)
		}
	}
}
