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

// TestRemoveTreeAtStopsWhereTheTreeMoved (the hundred-and-forty-eighth
// review): a directory of the chain moved, while the walk is below it,
// into a directory that holds the server's data; the walk's ".." then led
// there, and it removed what it held. Now the climb is checked against the
// directory entered on the way down: the walk stops, the data stays.
// Control: the same tree, not moved, is removed whole.
func TestRemoveTreeAtStopsWhereTheTreeMoved(t *testing.T) {
	removeAllFirst = false
	t.Cleanup(func() { removeAllFirst, removeTreeClimbHook = true, nil })
	for _, move := range []bool{false, true} {
		base := t.TempDir()
		tmp, victim := base+"/tmp", base+"/victim"
		chain := tmp + "/a/b/c/d"
		if err := os.MkdirAll(chain, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{chain + "/f", victim + "/data/token"} {
			if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		moved := false
		removeTreeClimbHook = func(names []string) {
			if move && !moved && len(names) == 4 { // in d, about to climb to c
				moved = true
				if err := os.Rename(tmp+"/a/b", victim+"/b"); err != nil {
					t.Fatal(err)
				}
			}
		}
		err := removeTreeAt(tmp)
		_, terr := os.Stat(victim + "/data/token")
		if move {
			if terr != nil {
				t.Fatalf("the walk climbed into the directory the chain was moved to and removed its data: %v", terr)
			}
			if err == nil {
				t.Error("the walk reported no error where the tree moved")
			}
			continue
		}
		if err != nil || terr != nil {
			t.Fatalf("control: removeTreeAt: %v; the other directory's data: %v", err, terr)
		}
		if _, err := os.Lstat(tmp); !os.IsNotExist(err) {
			t.Fatalf("control: the tree was not removed: %v", err)
		}
	}
}
