package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestRemoveTreeAtDeeperThanDescriptors: a tree deeper than the descriptor
// limit lets os.RemoveAll descend is removed whole (control: os.RemoveAll
// alone fails on it under the same limit), without following its links,
// and a wide tree of files and directories too.
func TestRemoveTreeAtDeeperThanDescriptors(t *testing.T) {
	var old unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	lim := old
	lim.Cur = 256
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	defer unix.Setrlimit(unix.RLIMIT_NOFILE, &old)
	target := filepath.Join(t.TempDir(), "kept")
	if err := os.WriteFile(target, []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deep := func() string {
		root := t.TempDir()
		fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 600 {
			if err := unix.Mkdirat(fd, "d", 0o755); err != nil {
				t.Fatal(err)
			}
			if i%100 == 0 {
				f, err := unix.Openat(fd, "f", unix.O_CREAT|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
				if err != nil {
					t.Fatal(err)
				}
				unix.Close(f)
				if err := unix.Symlinkat(target, fd, "l"); err != nil {
					t.Fatal(err)
				}
			}
			next, err := unix.Openat(fd, "d", unix.O_RDONLY|unix.O_DIRECTORY, 0)
			if err != nil {
				t.Fatal(err)
			}
			unix.Close(fd)
			fd = next
		}
		unix.Close(fd)
		return root
	}
	ctl := deep()
	if err := os.RemoveAll(ctl); err == nil {
		t.Fatal("control: os.RemoveAll removed a tree 600 deep under 256 descriptors")
	}
	removeTreeAt(ctl) // t.TempDir's own cleanup would fail on it
	root := deep()
	if err := removeTreeAt(root); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(root); !os.IsNotExist(err) {
		t.Fatalf("the tree is still there: %v", err)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "kept\n" {
		t.Fatalf("a link's target changed: %q %v", b, err)
	}
	wide := t.TempDir()
	for _, p := range []string{"a/b/c", "a/x", "e"} {
		os.MkdirAll(filepath.Join(wide, p), 0o755)
		os.WriteFile(filepath.Join(wide, p, "f"), []byte(strings.Repeat("x", 10)), 0o600)
	}
	if err := removeTreeAt(wide); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(wide); !os.IsNotExist(err) {
		t.Fatalf("the wide tree is still there: %v", err)
	}
}
