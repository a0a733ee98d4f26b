package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSensitiveMatchesAsGlob: the view's own expansion of sensitive
// patterns (each directory listed once per build) finds what
// filepath.Glob followed by kernelMasks finds, for patterns with "*", "?"
// and classes in any element, through symlinked and dangling entries, and
// a directory listed by several patterns is listed once.
func TestSensitiveMatchesAsGlob(t *testing.T) {
	d := t.TempDir()
	for _, p := range []string{"home/ann/.ssh", "home/bob/.ssh", "home/bob/.aws", "home/cy/.config/gh", "home/.hidden/.ssh", "srv/x1/k", "srv/x2/k", "srv/y1/k"} {
		if err := os.MkdirAll(filepath.Join(d, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(d, "home/cy/.config/gh/hosts.yml"), []byte("x"), 0o600)
	os.Symlink(filepath.Join(d, "home/ann"), filepath.Join(d, "home/link"))      // a home through a link
	os.Symlink(filepath.Join(d, "nowhere"), filepath.Join(d, "home/dangling"))   // leads nowhere
	os.Symlink(filepath.Join(d, "nowhere"), filepath.Join(d, "home/bob/.netrc")) // a dangling final element
	patterns := []string{
		"home/*/.ssh", "home/*/.aws", "home/*/.netrc", "home/*/.config/gh/hosts.yml", "home/*", "srv/x?/k",
		"srv/[xy]1/k", "srv/*/*", "home/*/missing", "nothere/*/x", "srv/[/k",
	}
	l := dirLists{}
	for _, p := range patterns {
		p = filepath.Join(d, p)
		want, _ := filepath.Glob(p)
		want = slices.DeleteFunc(want, func(m string) bool { return !kernelMasks(m) })
		got := l.sensitiveMatches(canonMemo{}, p)
		if len(want) == 0 && len(got) == 0 {
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: got %q, want %q", p, got, want)
		}
	}
	if len(l) == 0 || len(l[filepath.Join(d, "home")]) != 6 {
		t.Errorf("home was not listed once for all its patterns: %v", l)
	}
	// Control: the patterns above do match something.
	if got := l.sensitiveMatches(canonMemo{}, filepath.Join(d, "home/*/.ssh")); len(got) != 4 {
		t.Errorf("home/*/.ssh matched %q, want ann, .hidden, bob and link", got)
	}
}
