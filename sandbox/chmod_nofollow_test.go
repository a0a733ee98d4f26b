package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestChmodNoFollowRefusesASymlink (fourteenth review, left open): the
// last resort of setting aside on a full disk gave what it could not
// remove mode 0 with fchmodat, which follows a symlink; a command of
// another turn in the same root could swap one in first, and the server,
// often root, would have made its target (/etc/passwd) unreadable. The
// mode is now set through a descriptor opened without following. Control:
// a directory's mode is set.
func TestChmodNoFollowRefusesASymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "passwd")
	if err := os.WriteFile(target, []byte("root:x:0:0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, ".vscode")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "kept"), 0o755); err != nil {
		t.Fatal(err)
	}
	dfd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(dfd)
	if err := chmodNoFollow(dfd, ".vscode", 0); err == nil {
		t.Error("a symlink's mode was changed")
	}
	if fi, err := os.Stat(target); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("the symlink's target: %v %v, want 0644", fi.Mode(), err)
	}
	if err := chmodNoFollow(dfd, "kept", 0); err != nil {
		t.Fatalf("control: a directory: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "kept")); err != nil || fi.Mode().Perm() != 0 {
		t.Fatalf("control: the directory's mode: %v %v, want 0", fi.Mode(), err)
	}
	os.Chmod(filepath.Join(dir, "kept"), 0o755)
}
