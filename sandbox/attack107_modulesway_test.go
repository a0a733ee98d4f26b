package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"unsafe"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// TestAttack107_ModulesLinkWalk (hundred-and-seventh review): the
// discovery of a nested repository's git dir (protect.go gitDir) lists its
// "modules" directory with moduleDirs, recursively to maxSubmoduleDepth,
// through readDir, which follows a symlink (openDir: O_DIRECTORY without
// O_NOFOLLOW), reads every directory whole, spends none of the walk's
// budget, and is not remembered between git dirs (only gitDir's own
// d.seen["dir:"…] is). The agent owns its nested repositories: a command
// runs
//
//	for i in $(seq 64); do mkdir -p r$i/.git/objects r$i/.git/refs;
//	  echo 'ref: refs/heads/main' > r$i/.git/HEAD; ln -s / r$i/.git/modules; done
//
// and every later view of the workspace (each exec, each write decision
// of every turn there, waiting on the one build: viewsBuilding) walks the
// whole host file system eight levels deep (/proc, /sys, /usr, …) once per
// planted repository. On the review machine one such repository took the
// view build from 4 ms to 1.7 s; with eight, each write decision took 8
// to 15 s (the view is not reused: it cannot be watched); the bound on
// nested repositories
// is 4,096. The repository is inert (no config key runs anything), so the
// check after the command keeps it.
//
// Detected without a timer: an inotify watch on a directory outside the
// writable roots (the target of the planted links, standing in for "/")
// counts how often the server opened it to list it while it built one
// view; a directory with a HEAD below it is pinned as a git dir, which
// shows the walk went there.
//
// Control: an honest nested repository with a real modules/lib submodule
// git dir is still discovered (its modules/lib pinned).
func TestAttack107_ModulesLinkWalk(t *testing.T) {
	f := requireKernel(t, true)
	repo := func(ws, name string) string {
		g := filepath.Join(ws, name, ".git")
		for _, d := range []string{"objects", "refs"} {
			if err := os.MkdirAll(filepath.Join(g, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(g, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(g, "config"), []byte("[core]\n\trepositoryformatversion = 0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return g
	}
	pinned := func(v *fsView, p string) bool {
		for _, r := range v.pins {
			if r.Path == p {
				return true
			}
		}
		return false
	}

	// Control: a real submodule git dir under modules/ is found.
	ws := tempWorkspace(t)
	g := repo(ws, "app")
	lib := filepath.Join(g, "modules", "lib")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lib, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	if v := newFSView(&s.Sandbox.Filesystem); !pinned(v, lib) {
		t.Fatalf("control: the submodule git dir %s of an honest nested repository was not discovered", lib)
	}

	// Attack: outside stands in for "/": a tree outside the writable
	// roots, with a directory holding a HEAD three levels down.
	outside := tempWorkspace(t)
	deep := filepath.Join(outside, "usr", "share", "x")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(deep, "HEAD"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const planted = 16
	// The agent's command plants them (in its writable root; a symlink's
	// target is no access), and the check after it keeps them: they run
	// nothing.
	ws = tempWorkspace(t)
	s = snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, fmt.Sprintf(`cd %s && for i in $(seq %d); do mkdir -p r$i/.git/objects r$i/.git/refs && `+
		`echo 'ref: refs/heads/main' > r$i/.git/HEAD && ln -s %s r$i/.git/modules || exit 1; done && echo planted`, ws, planted, outside))
	if r.ExitCode != 0 || string(r.Stdout) != "planted\n" {
		t.Fatalf("the command did not plant the repositories: exit %d %q %q", r.ExitCode, r.Stdout, r.Stderr)
	}
	t.Logf("the check after the command set aside %d items", len(r.Quarantined))
	// Since the hundred-and-twentieth review's fix the check after the
	// command removes every link in a git dir, these too: the links are
	// put back from the host, where the command left them before that
	// rule (what is tested here is the view's walk, which must not follow
	// them, whoever made them).
	for i := 1; i <= planted; i++ {
		l := filepath.Join(ws, fmt.Sprintf("r%d", i), ".git", "modules")
		if _, err := os.Lstat(l); err == nil {
			continue
		}
		if err := os.Symlink(outside, l); err != nil {
			t.Fatal(err)
		}
	}
	// The walk of the roots is cached for walkTTL (2 s): the next
	// decision after that walks again (the test drops the cache, as
	// other tests do, rather than wait).
	walkCache.m = map[string]walkResult{}
	in, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(in)
	if _, err := unix.InotifyAddWatch(in, outside, unix.IN_OPEN|unix.IN_ONLYDIR); err != nil {
		t.Fatal(err)
	}
	v := newFSView(&s.Sandbox.Filesystem)
	opens := 0
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Read(in, buf)
		if err != nil || n <= 0 {
			break
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			if ev.Mask&unix.IN_OPEN != 0 && ev.Len == 0 {
				opens++ // the watched directory itself opened
			}
			off += unix.SizeofInotifyEvent + int(ev.Len)
		}
	}
	var outPins []string
	for _, r := range v.pins {
		if strings.HasSuffix(r.Path, "/.git/modules/usr/share/x") {
			outPins = append(outPins, r.Path)
		}
	}
	t.Logf("one view build opened %s %d times; git dirs pinned through the links: %d", outside, opens, len(outPins))
	if opens > 0 || len(outPins) > 0 {
		t.Errorf("building the view of a workspace whose %d nested repositories (made by the agent, inert) have "+
			".git/modules -> %s listed that directory outside the writable roots %d times (once per planted "+
			"repository, recursively %d levels, every directory whole, no budget) and took %d directories there for "+
			"git dirs: with the links at \"/\" each one walks the host's file system, and every exec and write "+
			"decision on the workspace waits for it", planted, outside, opens, maxSubmoduleDepth, len(outPins))
	}
}
