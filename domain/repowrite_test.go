package domain

import "testing"

// TestRepositoryWrite: a file tool's write with a ".git" component below the
// root (any case), of a file named HEAD, or into a directory that holds HEAD
// of another piece of a git dir (objects, refs, commondir, config) or of
// anything into a git dir, writes a repository; ordinary files named
// config, objects or refs do not.
func TestRepositoryWrite(t *testing.T) {
	const root = "/ws"
	disk := map[string]bool{
		"/ws/bare/objects": true, "/ws/bare/refs": true, // HEAD missing
		"/ws/half/HEAD": true, "/ws/half/objects": true, // refs missing
		"/ws/full/HEAD": true, "/ws/full/objects": true, "/ws/full/refs": true,
		"/ws/wt/HEAD": true, "/ws/wt/commondir": true,
		"/ws/lone/HEAD": true,                                  // HEAD alone
		"/ws/HEAD":      true,                                  // the root holds HEAD
		"/HEAD":         true, "/objects": true, "/refs": true, // above the root
	}
	exists := func(p string) bool { return disk[p] }
	for _, c := range []struct{ path, gitDir string }{
		{"/ws/.git/HEAD", "/ws/.git"},
		{"/ws/.git", "/ws/.git"},
		{"/ws/evil/.git", "/ws/evil/.git"},
		{"/ws/evil/.git/config", "/ws/evil/.git"},
		{"/ws/evil/.GIT/config", "/ws/evil/.GIT"},
		{"/ws/a/.Git/refs/heads/main", "/ws/a/.Git"},
		{"/ws/bare/HEAD", "/ws/bare"},
		{"/ws/bare/head", "/ws/bare"},
		{"/ws/new/dir/HEAD", "/ws/new/dir"},
		{"/ws/half/refs/heads/main", "/ws/half"},
		{"/ws/half/refs", "/ws/half"},
		{"/ws/half/config", "/ws/half"},
		{"/ws/lone/objects/ab/cd", "/ws/lone"},
		{"/ws/lone/Config", "/ws/lone"},
		{"/ws/lone/commondir", "/ws/lone"},
		{"/ws/full/config", "/ws/full"},
		{"/ws/full/hooks/post-checkout", "/ws/full"},
		{"/ws/full/description", "/ws/full"},
		{"/ws/wt/config", "/ws/wt"},
		{"/ws/wt/notes.txt", "/ws/wt"},
		{"/ws/refs/heads/x", "/ws"},
		{"/ws/config", "/ws"},
	} {
		if got, ok := RepositoryWrite(root, c.path, exists); !ok || got != c.gitDir {
			t.Errorf("RepositoryWrite(%q) = %q, %v; want %q", c.path, got, ok, c.gitDir)
		}
	}
	for _, p := range []string{
		"/ws", "/ws/src/main.go", "/ws/conf/config", "/ws/conf/objects/x", "/ws/conf/refs/y", "/ws/HEAD.txt", "/ws/src/head.go",
		"/ws/HEAD/x", "/ws/.github/workflows/ci.yml", "/ws/.gitignore", "/ws/git/config", "/ws/a.git/config", "/ws/bare/config",
		"/ws/bare/objects/x", "/ws/lone/notes.txt", "/ws/half/notes.txt", "/other/.git/config", "/wsx/.git/HEAD",
	} {
		if got, ok := RepositoryWrite(root, p, exists); ok {
			t.Errorf("RepositoryWrite(%q) = %q; want none", p, got)
		}
	}
	// A root at "/": components are those of the path.
	if got, ok := RepositoryWrite("/", "/x/.git/config", exists); !ok || got != "/x/.git" {
		t.Errorf(`RepositoryWrite("/", "/x/.git/config") = %q, %v`, got, ok)
	}
	if got, ok := RepositoryWrite("/", "/notes.txt", exists); !ok || got != "/" {
		t.Errorf(`RepositoryWrite("/", "/notes.txt") = %q, %v; want "/" (it holds HEAD, objects and refs)`, got, ok)
	}
}

// FuzzRepositoryWrite: a write with a ".git" component below the root is
// always a repository's, whatever the rest; nothing panics.
func FuzzRepositoryWrite(f *testing.F) {
	f.Add("/ws", "/ws/a/.git/config")
	f.Add("/", "/x")
	f.Add("/ws", "/ws/.GIT")
	f.Fuzz(func(t *testing.T, root, p string) {
		root, p = CleanPath(root), CleanPath(p)
		dir, ok := RepositoryWrite(root, p, func(string) bool { return false })
		if ok && !PathWithin(dir, root) {
			t.Fatalf("RepositoryWrite(%q, %q) = %q: outside the root", root, p, dir)
		}
		if !ok && PathWithin(p, root) && p != root {
			for _, el := range splitParts(p[len(root):]) {
				if len(el) == 4 && (el == ".git" || el == ".GIT" || el == ".Git") {
					t.Fatalf("RepositoryWrite(%q, %q): a .git component was missed", root, p)
				}
			}
		}
	})
}

func splitParts(p string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(p); i++ {
		if i == len(p) || p[i] == '/' {
			if i > start {
				out = append(out, p[start:i])
			}
			start = i + 1
		}
	}
	return out
}
