package sandbox

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestAttack124_GitDirFifoInLooseObjectDir (hundred-and-twenty-fourth
// review; low): since the hundred-and-twenty-second review a FIFO the
// command makes in a git dir is removed, but gitLinks does not look into
// the object store's loose-object directories (objects/xx), on the ground
// that git writes an object there by a link or a rename. Git also READS
// there, opening objects/xx/<rest> in place. The command replaces the
// loose object of the repository's HEAD commit with a FIFO: it stays, and
// the person's next git log, status or commit opens it for reading and
// blocks for ever, there being no writer. The test shows it without
// waiting: with a writer held open the person's git log opens the FIFO
// (and fails: "object file ... is empty").
//
// Control: the same FIFO at .git/FETCH_HEAD is removed.
func TestAttack124_GitDirFifoInLooseObjectDir(t *testing.T) {
	for _, c := range []struct{ name, at string }{
		{"control", `.git/FETCH_HEAD`},
		{"attack", `.git/objects/$(git rev-parse HEAD | cut -c1-2)/$(git rev-parse HEAD | cut -c3-)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws, _, s := attack122GitSetup(t)
			r := sh(t, s, attack122GitEnv+`p=`+c.at+` && rm -f $p && mkfifo $p && echo PLANTED $p`)
			t.Logf("plant: exit %d stdout %q stderr %q quarantined %v", r.ExitCode, r.Stdout, r.Stderr, quarantined(r))
			if !strings.Contains(string(r.Stdout), "PLANTED") {
				t.Fatalf("premise: %s", r.Stderr)
			}
			p := ws + "/" + strings.TrimSpace(strings.TrimPrefix(string(r.Stdout), "PLANTED "))
			var st unix.Stat_t
			if unix.Lstat(p, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
				return // removed: held
			}
			// A writer (and reader) held open, so that git's open does not block.
			fd, err := unix.Open(p, unix.O_RDWR|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			out, gerr := hostGitRun(t, ws, "log", "--oneline")
			unix.Close(fd)
			_, werr := unix.Open(p, unix.O_WRONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
			t.Errorf("%s: %s is a FIFO the command made in the git dir, and stayed: the person's git log opened it (with a writer held: %v %q), and without one an open finds none (%v): the person's git blocks", c.name, p, gerr, out, werr)
		})
	}
}
