package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"turnstile/domain"
)

// FuzzCheckFile: whatever the path, an allowed operation's resolved path is
// canonical (an independent resolver, filepath.EvalSymlinks, agrees on its
// existing part) and lies under a root whose canonical form grants the
// operation, outside every protected path for a write.
func FuzzCheckFile(f *testing.F) {
	for _, seed := range []string{
		"a.txt", "link-out/secret.txt", "link-out/../../ws/a.txt", "dangling", "dotdot/outside/x",
		"dotdot/ws/.git/config", "link-in/../link-out/x", ".git/../.git/hooks/x", "../ws2/.git",
		"../ws2/store/main.git/config", "/etc/passwd", "/proc/self/root/etc/passwd", "loop1/x",
		"new/../../outside/x", "etc-passwd", "//ws/./a.txt", "link-out/..", "dir/../../outside",
		"/dev/../tmp/x", "/proc/self/cwd/a.txt", "/proc/self/fd/0",
	} {
		f.Add(seed, true)
		f.Add(seed, false)
	}
	ft := newFileTree(f)
	snaps := map[bool]*domain.TurnExecutionSecuritySnapshot{
		true:  ft.snapshot(f, domain.ModeAutoAcceptEdits),
		false: ft.snapshot(f, domain.ModeSupervised),
	}
	type root struct {
		path   string
		access domain.Access
	}
	// The oracle's view of each snapshot: roots and protected paths
	// canonicalised by filepath.EvalSymlinks.
	roots := map[bool][]root{}
	var protected, pinned []string
	for auto, s := range snaps {
		for _, e := range s.Sandbox.Filesystem.Entries {
			c, err := filepath.EvalSymlinks(e.ResolvedPath)
			if err != nil {
				if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
					f.Fatal(err)
				}
				c = e.ResolvedPath
			}
			switch {
			case e.Kind == domain.PathProtected && e.Access == domain.AccessWrite:
				// A pinned path (.git): writable inside, never as a whole.
				pinned = append(pinned, c)
			case e.Kind == domain.PathProtected:
				protected = append(protected, c)
			default:
				roots[auto] = append(roots[auto], root{c, e.Access})
			}
		}
	}
	// The git dir the pointer file names: writable but for what makes git
	// run a program; the pointer file itself is read-only.
	pinned = append(pinned, ft.gitstore)
	for _, n := range []string{"config", "config.worktree", "hooks", "info"} {
		protected = append(protected, ft.gitstore+"/"+n, ft.ws+"/.git/"+n)
	}
	protected = append(protected, ft.ws2+"/.git")
	f.Fuzz(func(t *testing.T, path string, write bool) {
		op := domain.AccessRead
		if write {
			op = domain.AccessWrite
		}
		for _, auto := range []bool{true, false} {
			got, err := CheckFile(snaps[auto], path, op)
			if err != nil {
				var r *Refusal
				if !errors.As(err, &r) {
					t.Fatalf("non-Refusal error %T: %v", err, err)
				}
				continue
			}
			// The existing prefix of got is canonical by an independent
			// resolver, and the rest contains no "." or "..".
			existing := got
			for {
				if _, err := os.Lstat(existing); err == nil {
					break
				}
				existing = filepath.Dir(existing)
			}
			canon, err := filepath.EvalSymlinks(existing)
			if err != nil || canon != existing {
				t.Fatalf("%q allowed as %q, whose existing part %q is not canonical (%q, %v)", path, got, existing, canon, err)
			}
			if filepath.Clean(got) != got || strings.Contains(got, "/../") {
				t.Fatalf("%q allowed as non-clean %q", path, got)
			}
			ok := false
			for _, r := range roots[auto] {
				if domain.PathWithin(got, r.path) && r.access.Covers(op) {
					ok = true
				}
			}
			if write {
				for _, p := range protected {
					if domain.PathWithin(got, p) {
						ok = false
					}
				}
				for _, p := range pinned {
					if got == p {
						ok = false
					}
				}
			}
			if !ok {
				t.Fatalf("%q (%s, auto=%v) allowed as %q, outside the canonical roots", path, op, auto, got)
			}
		}
	})
}
