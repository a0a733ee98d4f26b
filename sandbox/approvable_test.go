package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// decideFile runs the production decision checker and compares the refusal
// code ("" = allowed) and, when allowed and want is set, the resolved path.
func decideFile(t *testing.T, s *domain.TurnExecutionSecuritySnapshot, path string, op domain.Access, code, want string) {
	t.Helper()
	got, err := DecisionChecker{}.ResolveFile(s, path, op, false)
	if code == "" {
		if err != nil {
			t.Errorf("%s %s: refused: %v", op, path, err)
		} else if want != "" && got != want {
			t.Errorf("%s %s: resolved %q, want %q", op, path, got, want)
		}
		return
	}
	var r CodedRefusal
	if !errors.As(err, &r) || r.Code != code {
		t.Errorf("%s %s: got (%q, %v), want %s", op, path, got, err, code)
	}
}

func mustDo(t *testing.T, errs ...error) {
	t.Helper()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestDecisionRenamedParentBetweenDecisions: the decision checker keeps what
// it derives from a snapshot between decisions, never what it found on disk
// about the checked path. A parent of the path renamed aside and replaced by
// a symlink out of the workspace between two decisions is seen at once (the
// second decision is symlink_escape), and putting it back is seen at once
// too (the control: the same path is allowed before and after).
func TestDecisionRenamedParentBetweenDecisions(t *testing.T) {
	base := tempWorkspace(t)
	ws, out := base+"/ws", base+"/outside"
	mustDo(t, os.MkdirAll(ws+"/src", 0o755), os.MkdirAll(out, 0o755))
	mustDo(t, os.WriteFile(ws+"/src/main.go", []byte("x"), 0o644), os.WriteFile(out+"/main.go", []byte("x"), 0o644))
	s := snapshotFor(t, domain.ModeSupervised, ws, domain.KernelFeatures{LandlockABI: 7, Seccomp: true})

	decideFile(t, s, "src/main.go", rd, "", ws+"/src/main.go")
	mustDo(t, os.Rename(ws+"/src", ws+"/src.old"), os.Symlink(out, ws+"/src"))
	decideFile(t, s, "src/main.go", rd, CodeSymlinkEscape, "")
	decideFile(t, s, "src/new.go", wr, CodeSymlinkEscape, "")
	mustDo(t, os.Remove(ws+"/src"), os.Rename(ws+"/src.old", ws+"/src"))
	decideFile(t, s, "src/main.go", rd, "", ws+"/src/main.go")

	// A symlink inside the workspace swapped between two decisions: the
	// second decision follows the new target.
	mustDo(t, os.Symlink("src", ws+"/link"))
	decideFile(t, s, "link/main.go", rd, "", ws+"/src/main.go")
	mustDo(t, os.Remove(ws+"/link"), os.Symlink(out, ws+"/link"))
	decideFile(t, s, "link/main.go", rd, CodeSymlinkEscape, "")
}

// TestDecisionCacheKeepsSnapshotsApart: two snapshots that differ in one
// entry, decided in turn through the same checker, each get their own
// answer; a snapshot changed in place after a decision is judged as it now
// stands (the cache compares its inputs in full and keeps a copy of them).
func TestDecisionCacheKeepsSnapshotsApart(t *testing.T) {
	ws := tempWorkspace(t)
	mustDo(t, os.MkdirAll(ws+"/private", 0o755), os.WriteFile(ws+"/private/key", []byte("x"), 0o644))
	open := snapshotFor(t, domain.ModeSupervised, ws, domain.KernelFeatures{LandlockABI: 7, Seccomp: true})
	closed := snapshotFor(t, domain.ModeSupervised, ws, domain.KernelFeatures{LandlockABI: 7, Seccomp: true})
	closed.Sandbox.Filesystem.Entries = append(closed.Sandbox.Filesystem.Entries, domain.FilesystemEntry{Kind: domain.PathExplicit,
		Path: ws + "/private", Access: domain.AccessDeny, Provenance: domain.ProvenanceComposer, ResolvedPath: ws + "/private"})
	for range 2 {
		decideFile(t, open, "private/key", rd, "", ws+"/private/key")
		decideFile(t, closed, "private/key", rd, CodeOutsideAllowedRoots, "")
	}
	// The same snapshot changed in place: the deny entry made a read grant.
	last := &closed.Sandbox.Filesystem.Entries[len(closed.Sandbox.Filesystem.Entries)-1]
	last.Access = domain.AccessRead
	decideFile(t, closed, "private/key", rd, "", ws+"/private/key")
	last.Access = domain.AccessDeny
	decideFile(t, closed, "private/key", rd, CodeOutsideAllowedRoots, "")
	// And the cwd is part of what is compared: the same relative path from
	// another cwd is another file.
	moved := *open
	moved.Sandbox.Cwd = filepath.Join(ws, "private")
	decideFile(t, &moved, "key", rd, "", ws+"/private/key")
	decideFile(t, open, "key", rd, CodeMissingPath, "")
}

// TestDecisionProtectedSymlinkSwapped: a protected path that is a symlink
// protects where it leads now, not where it led at an earlier decision. The
// agent points .claude at one directory, has a decision made, then points it
// at another (from another process): a write to the new target is refused
// at once, and the old target, no longer protected, is writable (the
// control). The checker's cached view of the snapshot held the old target
// for up to a second before its views were watched (viewwatch.go).
func TestDecisionProtectedSymlinkSwapped(t *testing.T) {
	ws := tempWorkspace(t)
	mustDo(t, os.MkdirAll(ws+"/a", 0o755), os.MkdirAll(ws+"/b", 0o755), os.Symlink("a", ws+"/.claude"))
	s := snapshotFor(t, domain.ModeSupervised, ws, domain.KernelFeatures{LandlockABI: 7, Seccomp: true})

	decideFile(t, s, ".claude/settings.json", wr, CodeWriteRequiresWritable, "")
	decideFile(t, s, "a/settings.json", wr, CodeWriteRequiresWritable, "")
	decideFile(t, s, "b/settings.json", wr, "", ws+"/b/settings.json")
	// Another process swaps the link (as the agent's shell would).
	if out, err := exec.Command("ln", "-sfn", "b", ws+"/.claude").CombinedOutput(); err != nil {
		t.Fatalf("ln: %v: %s", err, out)
	}
	decideFile(t, s, ".claude/settings.json", wr, CodeWriteRequiresWritable, "")
	decideFile(t, s, "b/settings.json", wr, CodeWriteRequiresWritable, "")
	decideFile(t, s, "a/settings.json", wr, "", ws+"/a/settings.json")
}

// TestDecisionGitPointerRewritten: the git dir a ".git" pointer file names is
// protected (its config read-only); the agent rewrites the pointer to name
// another directory between two decisions: the new git dir's config is
// protected at once, the old one no longer is (the control; a file tool
// still may not write a config next to a HEAD, domain.RepositoryWrite).
func TestDecisionGitPointerRewritten(t *testing.T) {
	ws := tempWorkspace(t)
	for _, g := range []string{"gd1", "gd2"} {
		mustDo(t, os.MkdirAll(ws+"/"+g+"/hooks", 0o755), os.WriteFile(ws+"/"+g+"/config", []byte("[core]\n"), 0o644),
			os.WriteFile(ws+"/"+g+"/HEAD", []byte("ref: refs/heads/main\n"), 0o644))
	}
	mustDo(t, os.WriteFile(ws+"/.git", []byte("gitdir: gd1\n"), 0o644))
	s := snapshotFor(t, domain.ModeSupervised, ws, domain.KernelFeatures{LandlockABI: 7, Seccomp: true})

	decideFileMessage(t, s, "gd1/config", "protected path")
	decideFileMessage(t, s, "gd2/config", "a git repository's own file")
	mustDo(t, os.WriteFile(ws+"/.git", []byte("gitdir: gd2\n"), 0o644))
	decideFileMessage(t, s, "gd2/config", "protected path")
	decideFileMessage(t, s, "gd1/config", "a git repository's own file")
}

// TestDecisionProfileRuleSymlinkRetargeted: a permission profile's deny rule
// names a symlink; it denies where the link leads now. The agent retargets
// the link between two decisions: the new target is denied at once, the old
// one is readable again (the control).
func TestDecisionProfileRuleSymlinkRetargeted(t *testing.T) {
	ws := tempWorkspace(t)
	mustDo(t, os.MkdirAll(ws+"/x", 0o755), os.MkdirAll(ws+"/y", 0o755), os.Symlink("x", ws+"/private"),
		os.WriteFile(ws+"/x/key", []byte("k"), 0o644), os.WriteFile(ws+"/y/key", []byte("k"), 0o644))
	s := snapshotFor(t, domain.ModeSupervised, ws, domain.KernelFeatures{LandlockABI: 7, Seccomp: true})
	s.Sandbox.Filesystem.Rules = []domain.PathRule{
		{Key: ":workspace_roots", Pattern: ws, Access: domain.AccessRead, Provenance: "profile", Origin: "test"},
		{Key: "private", Pattern: ws + "/private", Access: domain.AccessDeny, Provenance: "profile", Origin: "test"},
	}
	decideFile(t, s, "x/key", rd, CodeOutsideAllowedRoots, "")
	decideFile(t, s, "y/key", rd, "", ws+"/y/key")
	if out, err := exec.Command("ln", "-sfn", "y", ws+"/private").CombinedOutput(); err != nil {
		t.Fatalf("ln: %v: %s", err, out)
	}
	decideFile(t, s, "y/key", rd, CodeOutsideAllowedRoots, "")
	decideFile(t, s, "x/key", rd, "", ws+"/x/key")
}

// TestCanonicalFastAgreesWithWalk: where the one-syscall resolution answers
// (no symlink on the way), it answers what the component walk does; where a
// symlink, a missing component or a file used as a directory is on the way,
// it does not answer (the walk does), so a link is never taken lexically.
func TestCanonicalFastAgreesWithWalk(t *testing.T) {
	ws := tempWorkspace(t)
	mustDo(t, os.MkdirAll(ws+"/a/b", 0o755), os.WriteFile(ws+"/a/f", []byte("x"), 0o644),
		os.Symlink("a/b", ws+"/l"), os.Symlink("/etc", ws+"/a/etc"))
	answers := 0
	for _, p := range []string{"", "/a", "/a/b", "/a/b/..", "/a/b/../f", "/a/./b/", "/a/f", "/a/f/", "/a/f/..", "/l", "/l/..",
		"/l/../f", "/a/etc/passwd", "/a/missing", "/a/missing/..", "/a/missing/x", "/a/b/../new", "/a/f/new", "/l/new", "/a/etc/new",
		"/a/b/../../a/f", "/../a/f", "/a/missing/", "/a/."} {
		abs := ws + p
		canon, exists, ok, err := canonicalPath(abs)
		fast, st, fastExists, answered := canonicalFast(abs)
		if !answered {
			continue
		}
		answers++
		if err != nil || !ok || exists != fastExists || fast != canon {
			t.Errorf("%s: fast (%q, exists %v), walk (%q, exists %v, ok %v, %v)", p, fast, fastExists, canon, exists, ok, err)
		}
		var want unix.Stat_t
		if exists && (unix.Stat(canon, &want) != nil || want.Ino != st.Ino || want.Dev != st.Dev) {
			t.Errorf("%s: the fast path's stat is not %s's", p, canon)
		}
		if !exists && st.Mode != 0 {
			t.Errorf("%s: a missing path has a stat", p)
		}
		if strings.HasPrefix(p, "/l") || strings.HasPrefix(p, "/a/etc") {
			t.Errorf("%s: answered through a symlink", p)
		}
	}
	if answers < 6 {
		t.Fatalf("the fast path answered %d paths: the comparison proves little", answers)
	}
}

// TestDecisionSwapUnderConcurrentDecisions: decisions run on eight
// goroutines while the protected symlink is retargeted; every decision that
// starts after the retarget has returned refuses the new target, and before
// it the new target is writable (the control). Run with -race, it also
// checks the caches' locking.
func TestDecisionSwapUnderConcurrentDecisions(t *testing.T) {
	ws := tempWorkspace(t)
	mustDo(t, os.MkdirAll(ws+"/a", 0o755), os.MkdirAll(ws+"/b", 0o755), os.Symlink("a", ws+"/.claude"))
	s := snapshotFor(t, domain.ModeSupervised, ws, domain.KernelFeatures{LandlockABI: 7, Seccomp: true})
	var (
		swapped atomic.Bool
		wg      sync.WaitGroup
		before  atomic.Int64 // allowed writes to b/ seen before the swap
		wrong   atomic.Int64 // allowed writes to b/ that started after it
		stop    = make(chan struct{})
	)
	for range 8 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				after := swapped.Load()
				_, err := DecisionChecker{}.ResolveFile(s, "b/settings.json", wr, false)
				switch {
				case err == nil && after:
					wrong.Add(1)
				case err == nil:
					before.Add(1)
				}
			}
		})
	}
	for before.Load() < 50 {
		runtime.Gosched()
	}
	mustDo(t, os.Remove(ws+"/.claude"), os.Symlink("b", ws+"/.claude"))
	swapped.Store(true)
	for i := 0; i < 2000; i++ {
		if _, err := (DecisionChecker{}).ResolveFile(s, "b/settings.json", wr, false); err == nil {
			wrong.Add(1)
		}
	}
	close(stop)
	wg.Wait()
	if n := wrong.Load(); n != 0 {
		t.Fatalf("%d writes to the newly protected target were allowed after the retarget", n)
	}
}

// TestDecisionGitDirEmptied: a .git directory's config is read-only; an
// empty .git is held (nothing may be created in it, so that no repository
// can be planted). Emptied between two decisions, it is held at once: the
// write refused before as a repository's file (file tools write no git dir,
// domain.RepositoryWrite; a command's git may) is refused after as under
// the held path.
func TestDecisionGitDirEmptied(t *testing.T) {
	ws := tempWorkspace(t)
	mustDo(t, os.MkdirAll(ws+"/.git", 0o755), os.WriteFile(ws+"/.git/HEAD", []byte("ref: refs/heads/main\n"), 0o644))
	s := snapshotFor(t, domain.ModeSupervised, ws, domain.KernelFeatures{LandlockABI: 7, Seccomp: true})
	decideFileMessage(t, s, ".git/ORIG_HEAD", "a git repository's own file")
	decideFile(t, s, ".git/config", wr, CodeWriteRequiresWritable, "")
	mustDo(t, os.Remove(ws+"/.git/HEAD"))
	decideFileMessage(t, s, ".git/ORIG_HEAD", "protected path "+ws+"/.git")
}

// decideFileMessage checks that the decision on a write of p is refused as
// write_requires_writable_root with a message that holds want.
func decideFileMessage(t *testing.T, s *domain.TurnExecutionSecuritySnapshot, p, want string) {
	t.Helper()
	_, err := DecisionChecker{}.ResolveFile(s, p, wr, false)
	var r CodedRefusal
	if !errors.As(err, &r) || r.Code != CodeWriteRequiresWritable || !strings.Contains(r.Message, want) {
		t.Errorf("write %s: %v, want %s naming %q", p, err, CodeWriteRequiresWritable, want)
	}
}
