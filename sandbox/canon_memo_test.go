package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
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
	// The forty names, root's ancestors and w/s: each answered once.
	answers := 0
	for k := range m {
		if strings.HasPrefix(k, "/") {
			answers++
		}
	}
	if want := 40 + len(splitPath(dir)); answers != want {
		t.Fatalf("the memo holds %d answers, want %d", answers, want)
	}
	// After listAfter of them, the directory was listed once and the
	// rest answered from its listing.
	if st := m["\x00"+dir]; st.names == nil || st.asked != listAfter {
		t.Fatalf("%s: asked %d, listed %v", dir, st.asked, st.names != nil)
	}
}

// TestCanonMemoListingAgrees: a directory of many names, files, links of
// every kind and directories among them, is answered from its listing
// once the pass has asked about listAfter of them, as canonicalPath
// answers each, in any order, the names made or removed before the pass
// included. Control: a directory past maxListedNames is not listed.
func TestCanonMemoListingAgrees(t *testing.T) {
	root, names := canonTree(t)
	dir := filepath.Join(root, "a")
	for i := 0; i < 30; i++ {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%02d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, fmt.Sprintf("n%02d", i), fmt.Sprintf("m%02d", i))
	}
	rapid.Check(t, func(rt *rapid.T) {
		m := canonMemo{}
		n := rapid.IntRange(listAfter, 80).Draw(rt, "paths")
		for i := 0; i < n; i++ {
			parts := append([]string{"a"}, rapid.SliceOfN(rapid.SampledFrom(names), 1, 3).Draw(rt, "parts")...)
			p := filepath.Join(append([]string{root}, parts...)...)
			wc, we, wok, werr := canonicalPath(p)
			gc, ge, gok, gerr := m.path(p)
			if gc != wc || ge != we || gok != wok || (werr == nil) != (gerr == nil) || (werr != nil && !sameErrno(werr, gerr)) {
				rt.Fatalf("%s: memo (%q, %v, %v, %v), canonicalPath (%q, %v, %v, %v)", p, gc, ge, gok, gerr, wc, we, wok, werr)
			}
		}
	})
	big := filepath.Join(root, "big")
	if err := os.Mkdir(big, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i <= maxListedNames; i++ {
		if err := os.WriteFile(filepath.Join(big, fmt.Sprint(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := canonMemo{}
	for i := 0; i < 2*listAfter; i++ {
		p := filepath.Join(big, fmt.Sprint(i*7))
		if _, exists, ok, err := m.path(p); err != nil || !ok || !exists {
			t.Fatalf("%s: exists %v ok %v %v", p, exists, ok, err)
		}
	}
	if st := m["\x00"+big]; st.names != nil || !st.unlisted {
		t.Fatalf("%s (%d names): listed %v", big, maxListedNames+1, st.names != nil)
	}
}

// TestTypeMemoAgreesWithLstat: a typeMemo with directories listed (list)
// answers each path's type as lstat does (0 when it fails), below files,
// links and missing directories too.
func TestTypeMemoAgreesWithLstat(t *testing.T) {
	root, names := canonTree(t)
	rapid.Check(t, func(rt *rapid.T) {
		m := newTypeMemo()
		for _, d := range rapid.SliceOfN(rapid.SampledFrom([]string{"", "a", "a/b", "d", "a/lb", "a/f", "missing"}), 0, 3).Draw(rt, "listed") {
			m.list(filepath.Join(root, d))
		}
		n := rapid.IntRange(1, 40).Draw(rt, "paths")
		for i := 0; i < n; i++ {
			p := filepath.Join(append([]string{root}, rapid.SliceOfN(rapid.SampledFrom(names), 1, 4).Draw(rt, "parts")...)...)
			var st unix.Stat_t
			want := uint32(0)
			if unix.Lstat(p, &st) == nil {
				want = st.Mode & unix.S_IFMT
			}
			if got := m.typeOf(p); got != want {
				rt.Fatalf("%s: typeOf %o, lstat %o", p, got, want)
			}
		}
	})
}
