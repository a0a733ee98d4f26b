package sandbox

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack107_ModulesLinkLoop (hundred-and-seventh review): the same
// moduleDirs walk (protect.go: a git dir's modules/ listed through
// readDir, which follows a symlink; every entry holding a HEAD taken for a
// git dir, gitDir, whose own modules/ is listed in turn, to
// maxSubmoduleDepth) remembers the git dirs it visited by the path it
// reached them by (d.seen["dir:"+g]), never by what they are. A symlinked
// modules/ that leads back to a directory of git dirs whose modules/
// lead there too is a loop the walk takes again at every level: K
// directories give K + K² + … + K⁸ git dirs, each pinned, with its five
// control files carved, its commondir read and the directory listed. The
// agent's command, in its writable root:
//
//	mkdir -p r/.git/objects r/.git/refs hub; echo 'ref: refs/heads/main' > r/.git/HEAD
//	ln -s $PWD/hub r/.git/modules
//	for i in $(seq 8); do mkdir hub/g$i; echo x > hub/g$i/HEAD; ln -s $PWD/hub hub/g$i/modules; done
//
// nine directories and nine links, which run nothing and are kept by the
// check after the command; every later view of the workspace (each exec,
// each write decision, of every turn there: the view is rebuilt after
// walkTTL) then makes 19 million git dirs: gigabytes of rules and hours
// of system calls in the server. Measured on the review machine through
// the decision path (CheckFile: the cached, watched build, whose lookups
// of every rule's path grow faster still): K = 2, 1.5 s; K = 3 (9,840
// git dirs from four directories), 27 s for one write decision; K = 5,
// a write decision not done after 10 minutes, its watch list past 24
// million lookups. The log shows the growth from K = 2.
//
// Detected by count, not time: the view pins every git dir it found;
// on disk there are K + 1.
//
// Control: an honest repository with submodules (modules/lib and
// modules/lib/modules/sub, real directories) has each found once.
func TestAttack107_ModulesLinkLoop(t *testing.T) {
	f := requireKernel(t, true)
	gitDirPins := func(v *fsView) int {
		n := 0
		for _, r := range v.pins {
			if r.Kind == pathKindGitDir && r.From == "" {
				n++
			}
		}
		return n
	}

	// Control: a repository with a submodule that has one of its own.
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, `cd `+ws+` && mkdir -p r/.git/objects r/.git/refs r/.git/modules/lib/modules/sub && `+
		`echo 'ref: refs/heads/main' > r/.git/HEAD && echo 'ref: refs/heads/main' > r/.git/modules/lib/HEAD && `+
		`echo 'ref: refs/heads/main' > r/.git/modules/lib/modules/sub/HEAD && echo made`)
	if r.ExitCode != 0 || string(r.Stdout) != "made\n" {
		t.Fatalf("control: the command did not run: exit %d %q %q", r.ExitCode, r.Stdout, r.Stderr)
	}
	walkCache.m = map[string]walkResult{} // as after walkTTL
	v := newFSView(&s.Sandbox.Filesystem)
	if n := gitDirPins(v); n != 3 {
		t.Fatalf("control: the view found %d git dirs, not the repository's and its two submodules' 3: %+v", n, v.pins)
	}

	// Attack: the loop, K = 2 then K = 3.
	var found int
	for _, k := range []int{2, 3} {
		ws := tempWorkspace(t)
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
		r := sh(t, s, fmt.Sprintf(`cd %s && mkdir -p r/.git/objects r/.git/refs hub && echo 'ref: refs/heads/main' > r/.git/HEAD && `+
			`ln -s $PWD/hub r/.git/modules && for i in $(seq %d); do mkdir hub/g$i && echo x > hub/g$i/HEAD && `+
			`ln -s $PWD/hub hub/g$i/modules || exit 1; done && echo planted`, ws, k))
		if r.ExitCode != 0 || string(r.Stdout) != "planted\n" {
			t.Fatalf("the command did not plant the loop: exit %d %q %q", r.ExitCode, r.Stdout, r.Stderr)
		}
		if len(r.Quarantined) > 0 || !exists(filepath.Join(ws, "r", ".git", "HEAD")) {
			t.Logf("the check after the command set aside: %+v", r.Quarantined)
		}
		walkCache.m = map[string]walkResult{} // as after walkTTL
		start := time.Now()
		// The write decision on a file of the workspace (the runtime's
		// edit tool) builds the view: the one the decision then uses.
		if _, err := CheckFile(s, filepath.Join(ws, "notes.txt"), domain.AccessWrite); err != nil {
			t.Fatalf("the write decision on the workspace's notes.txt: %v", err)
		}
		took := time.Since(start)
		v := cachedFSView(&s.Sandbox.Filesystem)
		found = gitDirPins(v)
		deepest := ""
		for _, p := range v.pins {
			if len(p.Path) > len(deepest) {
				deepest = p.Path
			}
		}
		t.Logf("K = %d: %d directories hold a HEAD on disk; one write decision built a view of %d git dirs, %d pins and %d carves in %v (deepest %s)",
			k, k+1, found, len(v.pins), len(v.carves), took, strings.TrimPrefix(deepest, ws))
		if k == 3 && found > 2*(k+1) {
			t.Errorf("a workspace holding %d directories with a HEAD (one repository, a hub of %d, their modules/ "+
				"linked to the hub) made one view build take %d git dirs (K + K² + … + K⁸ with K = %d): the walk "+
				"follows the linked modules/ and knows a git dir only by the path it took, so %d directories "+
				"of the agent's make %d git dirs with K = 8, rebuilt on every exec and write decision on the workspace",
				k+1, k, found, k, 9, 19173960)
		}
	}
}
