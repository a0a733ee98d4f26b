package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// TestViewLinkMadeBeneathTheAreaOnly: makeViewLink makes the directories
// on its way and the link beneath the area it is given. A directory on the
// way that is a symlink (the host changed between the two reads: a link
// re-pointed into a root, its protected .git/hooks) is not followed:
// nothing is made where it leads. Control: the same link by a path of
// plain directories is made, with the target's text.
func TestViewLinkMadeBeneathTheAreaOnly(t *testing.T) {
	base := t.TempDir()
	area, outside := filepath.Join(base, "area"), filepath.Join(base, "ws", ".git", "hooks")
	mustDo(t, os.MkdirAll(area, 0o755), os.MkdirAll(outside, 0o755), os.Symlink(outside, filepath.Join(area, "a")))
	fd, err := unix.Open(area, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	makeViewLink(fd, "a/pre-commit", "/tmp/evil.sh")
	if _, err := os.Lstat(filepath.Join(outside, "pre-commit")); err == nil {
		t.Errorf("a view link was made through a symlink on its way, in %s", outside)
	}
	makeViewLink(fd, "a/b/c", "x")
	if _, err := os.Lstat(filepath.Join(outside, "b")); err == nil {
		t.Errorf("a directory was made through a symlink on the way, in %s", outside)
	}
	makeViewLink(fd, "home/u/code", "../../mnt/code")
	if got, err := os.Readlink(filepath.Join(area, "home", "u", "code")); err != nil || got != "../../mnt/code" {
		t.Fatalf("control: the view link by plain directories: %q %v", got, err)
	}
}

// TestViewCacheKeepsLedTo: two snapshots whose entries differ only in where
// a root led when their turns started (FilesystemEntry.LedTo) are two
// views: the second is not served the first's, which granted the root
// where the second's turn had not judged it. Control: the first's view
// grants its root.
func TestViewCacheKeepsLedTo(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	mustDo(t, os.MkdirAll(a, 0o755), os.MkdirAll(b, 0o755), os.Symlink("a", filepath.Join(base, "lnk")))
	fp := func(ledTo string) *domain.FilesystemPolicy {
		return &domain.FilesystemPolicy{Entries: []domain.FilesystemEntry{{Kind: domain.PathWorkspaceRoot,
			Path: filepath.Join(base, "lnk"), Access: domain.AccessWrite, LedTo: ledTo}}}
	}
	granted := func(v *fsView) bool {
		for _, g := range v.grants {
			if g.Path == a {
				return true
			}
		}
		return false
	}
	if !granted(cachedFSView(fp(a))) {
		t.Fatal("control: the root that led where it leads is not granted")
	}
	if granted(cachedFSView(fp(b))) {
		t.Error("a snapshot whose root led elsewhere at its start was served the view granting it where it leads now")
	}
}

// TestViewKeepsTheLinkToARootInAHiddenArea: a workspace named through a
// symlink that lies in /tmp, which the view hides, is reached by the path
// the runtime wrote (the view re-creates that link); another link beside
// it, on the way to no grant, is not re-created, and nothing can be made
// in the hidden area. Control: the workspace's file is read through the
// link, and the link's text is the host's.
func TestViewKeepsTheLinkToARootInAHiddenArea(t *testing.T) {
	f := requireKernel(t, true)
	base := tempWorkspace(t)
	mustDo(t, os.MkdirAll(base+"/real/app", 0o755), os.MkdirAll(base+"/secret", 0o755),
		os.WriteFile(base+"/real/app/f", []byte("mine\n"), 0o644), os.WriteFile(base+"/secret/k", []byte("s3cret\n"), 0o644),
		os.Symlink("real", base+"/lnk"), os.Symlink("secret", base+"/other"))
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, base+"/lnk/app", f.Kernel)
	r := sh(t, s, "cat "+base+"/lnk/app/f; readlink "+base+"/lnk; cat "+base+"/other/k; ls "+base+"/other; ln -s x "+base+"/made && echo made")
	if r.ExitCode == 0 || !strings.Contains(string(r.Stdout), "mine\nreal\n") {
		t.Fatalf("control: the workspace through its link: exit %d, %s %s", r.ExitCode, r.Stdout, r.Stderr)
	}
	if strings.Contains(string(r.Stdout), "s3cret") || strings.Contains(string(r.Stdout), "made") {
		t.Errorf("the hidden area shows more than the link to the root: %q", r.Stdout)
	}
}

// TestDenyThroughLinkPinsTheLink: a deny written at a symlink in the
// writable workspace (vault -> .vault-data) covers where it leads, and the
// link is pinned while a command runs: removing or replacing it would
// leave the deny at a missing path and the directory it covered open
// (the fifty-third review). Control: another link to the same directory,
// which no entry names, is removed, and the workspace is written.
func TestDenyThroughLinkPinsTheLink(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	mustDo(t, os.MkdirAll(ws+"/.vault-data", 0o755), os.WriteFile(ws+"/.vault-data/k", []byte("s3cret\n"), 0o644),
		os.Symlink(".vault-data", ws+"/vault"), os.Symlink(".vault-data", ws+"/other"))
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	s.Sandbox.Filesystem.Entries = append(s.Sandbox.Filesystem.Entries, domain.FilesystemEntry{Kind: domain.PathExplicit,
		Path: ws + "/vault", ResolvedPath: ws + "/vault", Access: domain.AccessDeny, Provenance: domain.ProvenanceProfile})
	r := sh(t, s, "rm other && echo OTHER-GONE; echo x > mine && echo WROTE; rm vault && echo UNPINNED; mv vault v2 && echo MOVED; cat .vault-data/k")
	if !strings.Contains(string(r.Stdout), "OTHER-GONE\nWROTE\n") {
		t.Fatalf("control: the workspace's other link and file: exit %d, %s %s", r.ExitCode, r.Stdout, r.Stderr)
	}
	if strings.Contains(string(r.Stdout), "UNPINNED") || strings.Contains(string(r.Stdout), "MOVED") || strings.Contains(string(r.Stdout), "s3cret") {
		t.Errorf("the link a deny is written through was removed or moved, or its target read: %s", r.Stdout)
	}
}
