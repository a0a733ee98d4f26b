package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"turnstile/domain"
)

// TestCatchUpLinksInSharedTmpAreTheCommandsOnly: the check of what a
// killed command left sets aside a symlink made since the kill on the way
// to a protected path; in a shared /tmp (a root server, ":slash_tmp" =
// "write") only one of the command's uid: another user's link at the
// top of /tmp, made after the kill, is theirs and stays. Control: the same
// link of the command's uid is set aside.
func TestCatchUpLinksInSharedTmpAreTheCommandsOnly(t *testing.T) {
	requireKernel(t, true)
	if os.Geteuid() != 0 {
		t.Skip("the sandbox uid is a root server's")
	}
	for _, c := range []struct {
		name  string
		owner int
		kept  bool
	}{{"another-users", 4242, true}, {"control-the-commands", SandboxUID, false}} {
		t.Run(c.name, func(t *testing.T) {
			ws := tempWorkspace(t) // in /tmp
			s := profileSnapshot(t, ws, map[string]domain.Access{":slash_tmp": domain.AccessWrite})
			var link string
			for _, e := range s.Sandbox.Filesystem.Entries {
				if e.Kind == domain.PathProtected && filepath.Dir(e.ResolvedPath) == "/tmp" {
					if _, err := os.Lstat(e.ResolvedPath); os.IsNotExist(err) {
						link = e.ResolvedPath
						break
					}
				}
			}
			if link == "" {
				t.Fatal("premise: no missing protected name at the top of /tmp in the snapshot")
			}
			lock, err := lockRoots(context.Background(), []string{ws, "/tmp"})
			if err != nil {
				t.Fatal(err)
			}
			lock.MarkStarted(coarseNow())
			if dir, err := rootLockDir(); err == nil {
				t.Cleanup(func() {
					for _, r := range []string{ws, "/tmp"} {
						os.Remove(pendingMarker(lockFileName(dir, r)))
						for _, a := range lockAncestors(r) {
							os.Remove(belowMarker(dir, a, r))
						}
					}
				})
			}
			lock.Release() // killed: no check
			target := t.TempDir()
			mustDo(t, os.Symlink(target, link))
			t.Cleanup(func() { os.Remove(link); os.Remove(link + ".turnstile-untrusted") })
			mustDo(t, os.Lchown(link, c.owner, c.owner))
			r := sh(t, &s, "echo next")
			t.Logf("%s: set aside %+v; limits %q", link, r.Quarantined, r.CheckLimits)
			_, err = os.Lstat(link)
			if kept := err == nil; kept != c.kept {
				t.Errorf("%s of uid %d: kept %v, want %v", link, c.owner, kept, c.kept)
			}
		})
	}
}
