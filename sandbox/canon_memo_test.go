package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"pgregory.net/rapid"
)

// canonTree makes a tree in a temp dir with directories, files, symlinks
// (relative, absolute, to missing places, through "..", in a loop, to a
// file used as a directory) and an unsearchable directory, and returns its
// root and the names its paths are built from.
func canonTree(t *testing.T) (string, []string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mk := func(p string) {
		if err := os.MkdirAll(filepath.Join(root, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	file := func(p string) {
		if err := os.WriteFile(filepath.Join(root, p), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, p string) {
		if err := os.Symlink(target, filepath.Join(root, p)); err != nil {
			t.Fatal(err)
		}
	}
	mk("a/b/c")
	mk("d")
	mk("locked/inner")
	file("a/f")
	file("a/b/g")
	link("b", "a/lb")                        // relative, to a directory
	link(filepath.Join(root, "d"), "a/abs")  // absolute
	link("../d", "a/b/up")                   // through ".."
	link("missing/x", "a/dangling")          // to a missing place
	link("../../nowhere/../d", "a/b/climb")  // ".." through a missing place
	link("loop2", "a/loop1")                 // a loop
	link("loop1", "a/loop2")                 //
	link("f", "a/tofile")                    // to a file
	link(".", "a/self")                      // to its own directory
	link(filepath.Join(root, "a/lb"), "d/l") // a link to a link
	if os.Geteuid() != 0 {
		// Unsearchable for this user (root searches anything).
		if err := os.Chmod(filepath.Join(root, "locked"), 0o000); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(filepath.Join(root, "locked"), 0o755) })
	}
	return root, []string{"a", "b", "c", "d", "f", "g", "lb", "abs", "up", "dangling", "climb", "loop1",
		"tofile", "self", "l", "locked", "inner", "missing", "x", ".git"}
}

// TestCanonMemoAgreesOnRandomPaths: one memo, asked for random paths
// in random order over a tree of symlinks of every kind, answers each as
// canonicalPath does (the canonical form, whether it exists, whether it is
// resolvable, and the error, by errno), asked twice or after its parents.
func TestCanonMemoAgreesOnRandomPaths(t *testing.T) {
	root, names := canonTree(t)
	rapid.Check(t, func(rt *rapid.T) {
		m := canonMemo{}
		n := rapid.IntRange(1, 30).Draw(rt, "paths")
		for i := 0; i < n; i++ {
			parts := rapid.SliceOfN(rapid.SampledFrom(names), 1, 6).Draw(rt, "parts")
			p := filepath.Join(append([]string{root}, parts...)...)
			wc, we, wok, werr := canonicalPath(p)
			gc, ge, gok, gerr := m.path(p)
			if gc != wc || ge != we || gok != wok || (werr == nil) != (gerr == nil) || (werr != nil && !sameErrno(werr, gerr)) {
				rt.Fatalf("%s: memo (%q, %v, %v, %v), canonicalPath (%q, %v, %v, %v)", p, gc, ge, gok, gerr, wc, we, wok, werr)
			}
		}
	})
}

func sameErrno(a, b error) bool {
	var ea, eb *os.PathError
	if errors.As(a, &ea) && errors.As(b, &eb) {
		return ea.Err == eb.Err
	}
	return a.Error() == b.Error()
}

// TestCanonMemoResolvesEachDirectoryOnce: forty names in one directory
// three levels down cost one lstat each plus one per directory, where
// canonicalPath costs four each (counted through the memo's entries).
func TestCanonMemoResolvesEachDirectoryOnce(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "w", "s")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	m := canonMemo{}
	for i := 0; i < 40; i++ {
		p := filepath.Join(dir, ".name"+string(rune('a'+i%26))+string(rune('a'+i/26)))
		if c, exists, ok, err := m.path(p); err != nil || !ok || exists || c != p {
			t.Fatalf("%s: %q %v %v %v", p, c, exists, ok, err)
		}
	}
	// The forty names, root's ancestors and w/s: each asked of the
	// kernel once.
	if want := 40 + len(splitPath(dir)); len(m) != want {
		t.Fatalf("the memo holds %d answers, want %d", len(m), want)
	}
}
