package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestLinkChain: every link a lookup passes is listed, the middle of a
// chain and a link reached through ".." included, with where the path
// leads; a path without links is itself.
func TestLinkChain(t *testing.T) {
	top, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"srv/real", "home/agent", "etc", "x/y"} {
		if err := os.MkdirAll(filepath.Join(top, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, at string) {
		if err := os.Symlink(target, filepath.Join(top, at)); err != nil {
			t.Fatal(err)
		}
	}
	link(filepath.Join(top, "srv/real"), "home/agent/cfg")
	link("../home/agent/cfg", "etc/ts")
	link("y/../../etc/ts", "x/up")
	got, err := linkChain(filepath.Join(top, "x/up"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{top + "/x/up", top + "/x/up", top + "/etc/ts", top + "/home/agent/cfg", top + "/srv/real"}
	if !slices.Equal(got, want) {
		t.Errorf("linkChain(x/up) = %q, want %q", got, want)
	}
	got, err = linkChain(filepath.Join(top, "srv/real"))
	if err != nil || !slices.Equal(got, []string{top + "/srv/real"}) {
		t.Errorf("a path without links: %q %v", got, err)
	}
}
