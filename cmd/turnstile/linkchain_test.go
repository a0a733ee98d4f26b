package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
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
	want := []string{top + "/x/up", top + "/etc/ts", top + "/home/agent/cfg", top + "/srv/real"}
	if !slices.Equal(got, want) {
		t.Errorf("linkChain(x/up) = %q, want %q", got, want)
	}
	got, err = linkChain(filepath.Join(top, "srv/real"))
	if err != nil || !slices.Equal(got, []string{top + "/srv/real"}) {
		t.Errorf("a path without links: %q %v", got, err)
	}
}

// TestKernelPathDotDotAfterLink: a ".." after a link is taken from where
// the link led, as the kernel opens the path (not removed as text, which
// named another file: the hundred-and-fifty-fifth review).
func TestKernelPathDotDotAfterLink(t *testing.T) {
	top, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(top+"/ws/secrets/current", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(top+"/ws/secrets/token", []byte("t\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(top+"/ws/secrets/current", top+"/ts"); err != nil {
		t.Fatal(err)
	}
	if got, ok := kernelPath(top + "/ts/../token"); !ok || got != top+"/ws/secrets/token" {
		t.Errorf("kernelPath(ts/../token) = %q %v, want %s", got, ok, top+"/ws/secrets/token")
	}
	if got, ok := kernelPath(top + "/ws/secrets/token"); !ok || got != top+"/ws/secrets/token" {
		t.Errorf("control: kernelPath of a path without links = %q %v", got, ok)
	}
}

// TestReadTokenFileRefusesAFIFO: a token file that is a FIFO is refused at
// once (never read: its writer would choose the token). Control: a
// regular 0600 file is read.
func TestReadTokenFileRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(dir+"/fifo", 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readTokenFile(dir + "/fifo"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a FIFO token file: %v", err)
	}
	if err := os.WriteFile(dir+"/token", []byte("0123456789abcdef0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := readTokenFile(dir + "/token"); err != nil || got != "0123456789abcdef0123456789abcdef" {
		t.Errorf("control: a regular token file: %q %v", got, err)
	}
}
