package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWatchNeverFollowsALinkSwappedIn: a directory the view's walk found
// real is swapped for a symbolic link before its watch is added (the hook
// stands for the agent's second process), then swapped back. The watch
// must not land on the link's target filed under the directory's path:
// then a change in the real directory afterwards went unseen, and a cached
// view that looked a name up there was reused after it changed (review
// 111's lead). The control adds the same watches with nothing swapped and
// sees the same change.
func TestWatchNeverFollowsALinkSwappedIn(t *testing.T) {
	top := t.TempDir()
	a, aside, other := filepath.Join(top, "a"), filepath.Join(top, "a.real"), filepath.Join(top, "other")
	for _, d := range []string{a, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ls := []lookup{{dir: top, name: "a"}, {dir: a, name: "x"}}
	watchAddHook = func(dir string) {
		if dir != a {
			return
		}
		if err := os.Rename(a, aside); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(other, a); err != nil {
			t.Error(err)
		}
	}
	ok := watchLookups(ls)
	watchAddHook = nil
	// The agent puts the real directory back.
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(aside, a); err != nil {
		t.Fatal(err)
	}
	if ok {
		before, _, _ := watchGen()
		if err := os.Mkdir(filepath.Join(a, "x"), 0o755); err != nil {
			t.Fatal(err)
		}
		if after, _, _ := watchGen(); after == before {
			t.Fatal("a watch added through a link swapped in was filed as the real directory's: x made there went unseen")
		}
		return
	}
	// Refused (the view is not cached). The control: the same lookups
	// watched with nothing swapped see x made.
	if !watchLookups(ls) {
		t.Fatal("the control's watches could not be added")
	}
	before, _, _ := watchGen()
	if err := os.Mkdir(filepath.Join(a, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if after, _, _ := watchGen(); after == before {
		t.Fatal("control: x made in a watched directory went unseen")
	}
}
