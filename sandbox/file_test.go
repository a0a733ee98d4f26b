package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// fileTree builds a workspace with symlinks in and out, a .git directory, a
// .git pointer file in a second root, and an outside directory.
type fileTree struct {
	ws, ws2, out, gitstore string
}

func newFileTree(t testing.TB) fileTree {
	t.Helper()
	base := tempWorkspace(t)
	ft := fileTree{ws: base + "/ws", ws2: base + "/ws2", out: base + "/outside"}
	ft.gitstore = ft.ws2 + "/store/main.git"
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{ft.ws + "/dir", ft.ws + "/.git/hooks", ft.ws2 + "/src", ft.gitstore + "/hooks", ft.out} {
		must(os.MkdirAll(d, 0o755))
	}
	for _, f := range []string{ft.ws + "/a.txt", ft.ws + "/dir/b.txt", ft.ws + "/.git/config", ft.out + "/secret.txt", ft.gitstore + "/config"} {
		must(os.WriteFile(f, []byte("content\n"), 0o644))
	}
	must(os.WriteFile(ft.ws2+"/.git", []byte("gitdir: store/main.git\n"), 0o644))
	must(os.Symlink(ft.out, ft.ws+"/link-out"))
	must(os.Symlink("dir", ft.ws+"/link-in"))
	must(os.Symlink("../outside/new.txt", ft.ws+"/dangling"))
	must(os.Symlink("loop2", ft.ws+"/loop1"))
	must(os.Symlink("loop1", ft.ws+"/loop2"))
	must(os.Symlink("/etc/passwd", ft.ws+"/etc-passwd"))
	must(os.Symlink("link-out/..", ft.ws+"/dotdot"))
	return ft
}

// snapshotRoots resolves a snapshot over ws with ws2 as a project root.
func (ft fileTree) snapshot(t testing.TB, mode domain.Mode) *domain.TurnExecutionSecuritySnapshot {
	t.Helper()
	s, err := domain.ResolveSnapshot(domain.SnapshotInputs{
		Profile: domain.ResolveProfile(&domain.ProfileRequest{Mode: mode}, domain.SourceComposer),
		Cwd:     ft.ws, WorkspaceRoot: ft.ws, ProjectRoots: []string{ft.ws2},
		Kernel: domain.KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	return &s
}

func TestCheckFile(t *testing.T) {
	ft := newFileTree(t)
	const R, W = domain.AccessRead, domain.AccessWrite
	cases := []struct {
		mode     domain.Mode
		path     string
		op       domain.Access
		code     string // "" = allowed
		resolved string // checked when allowed and non-empty
	}{
		{domain.ModeAutoAcceptEdits, "", R, CodeEmptyPath, ""},
		{domain.ModeAutoAcceptEdits, "   ", W, CodeEmptyPath, ""},
		{domain.ModeAutoAcceptEdits, "a\x00b", R, CodeInvalidPath, ""},
		{domain.ModeAutoAcceptEdits, "a.txt", R, "", ft.ws + "/a.txt"},
		{domain.ModeAutoAcceptEdits, "./dir/../a.txt", W, "", ft.ws + "/a.txt"},
		{domain.ModeAutoAcceptEdits, "new.txt", W, "", ft.ws + "/new.txt"},
		{domain.ModeAutoAcceptEdits, "new/deeper/x.txt", W, "", ft.ws + "/new/deeper/x.txt"},
		{domain.ModeAutoAcceptEdits, "missing.txt", R, CodeMissingPath, ""},
		{domain.ModeAutoAcceptEdits, "a.txt/x", R, CodeMissingPath, ""},
		{domain.ModeAutoAcceptEdits, "a.txt/x", W, CodeInvalidPath, ""},
		{domain.ModeAutoAcceptEdits, "link-in/b.txt", W, "", ft.ws + "/dir/b.txt"},
		{domain.ModeAutoAcceptEdits, "link-out/secret.txt", R, CodeSymlinkEscape, ""},
		{domain.ModeAutoAcceptEdits, "link-out/new.txt", W, CodeSymlinkEscape, ""},
		{domain.ModeAutoAcceptEdits, "dangling", W, CodeSymlinkEscape, ""},
		{domain.ModeAutoAcceptEdits, "dangling", R, CodeSymlinkEscape, ""}, // a missing read is judged where it would be
		{domain.ModeAutoAcceptEdits, "dotdot/ws/a.txt", W, "", ft.ws + "/a.txt"},
		{domain.ModeAutoAcceptEdits, "etc-passwd", R, "", "/etc/passwd"},
		{domain.ModeAutoAcceptEdits, "etc-passwd", W, CodeSymlinkEscape, ""},
		{domain.ModeAutoAcceptEdits, "loop1", R, CodeInvalidPath, ""},
		{domain.ModeAutoAcceptEdits, "../outside/secret.txt", R, CodeOutsideAllowedRoots, ""},
		{domain.ModeAutoAcceptEdits, ft.out + "/new.txt", W, CodeOutsideAllowedRoots, ""},
		{domain.ModeAutoAcceptEdits, ".git/config", R, "", ft.ws + "/.git/config"},
		{domain.ModeAutoAcceptEdits, ".git/config", W, CodeWriteRequiresWritable, ""},
		{domain.ModeAutoAcceptEdits, ".git/hooks/x", W, CodeWriteRequiresWritable, ""},
		{domain.ModeAutoAcceptEdits, ".agents/new", W, CodeWriteRequiresWritable, ""},
		{domain.ModeAutoAcceptEdits, ft.ws2 + "/src/x.go", W, "", ft.ws2 + "/src/x.go"},
		{domain.ModeAutoAcceptEdits, ft.ws2 + "/.git", W, CodeWriteRequiresWritable, ""},
		{domain.ModeAutoAcceptEdits, ft.gitstore + "/config", W, CodeWriteRequiresWritable, ""},
		{domain.ModeAutoAcceptEdits, ft.gitstore + "/hooks/pre-commit", W, CodeWriteRequiresWritable, ""},
		{domain.ModeAutoAcceptEdits, ft.gitstore + "/config", R, "", ft.gitstore + "/config"},
		{domain.ModeAutoAcceptEdits, "/etc/passwd", R, "", "/etc/passwd"},
		{domain.ModeAutoAcceptEdits, "/etc/../etc/passwd", W, CodeWriteRequiresWritable, ""},
		{domain.ModeAutoAcceptEdits, "/etc/turnstile-new", W, CodeWriteRequiresWritable, ""},
		{domain.ModeAutoAcceptEdits, "/dev/null", W, "", "/dev/null"},
		{domain.ModeAutoAcceptEdits, "/tmp/x", W, CodeOutsideAllowedRoots, ""},
		{domain.ModeAutoAcceptEdits, "/", R, CodeOutsideAllowedRoots, ""},
		{domain.ModeAutoAcceptEdits, "a.txt", domain.AccessDeny, CodeUnsupportedAccess, ""},
		{domain.ModeSupervised, "a.txt", R, "", ft.ws + "/a.txt"},
		{domain.ModeSupervised, "a.txt", W, CodeWriteRequiresWritable, ""},
		{domain.ModeSupervised, "new.txt", W, CodeWriteRequiresWritable, ""},
		{domain.ModeSupervised, "link-out/secret.txt", R, CodeSymlinkEscape, ""},
		{domain.ModeFullAccess, ft.out + "/new.txt", W, "", ft.out + "/new.txt"},
		{domain.ModeFullAccess, "link-out/secret.txt", R, "", ft.out + "/secret.txt"},
		{domain.ModeFullAccess, "missing.txt", R, CodeMissingPath, ""},
		{domain.ModeFullAccess, "missing.txt", W, "", ft.ws + "/missing.txt"},
	}
	for _, c := range cases {
		t.Run(string(c.mode)+"/"+string(c.op)+"/"+c.path, func(t *testing.T) {
			got, err := CheckFile(ft.snapshot(t, c.mode), c.path, c.op)
			if c.code == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if c.resolved != "" && got != c.resolved {
					t.Fatalf("resolved %q, want %q", got, c.resolved)
				}
				return
			}
			var r *Refusal
			if !errors.As(err, &r) || r.Code != c.code {
				t.Fatalf("got (%q, %v), want code %s", got, err, c.code)
			}
		})
	}
}

func TestCheckFileNoSnapshot(t *testing.T) {
	_, err := CheckFile(nil, "/etc/passwd", domain.AccessRead)
	var r *Refusal
	if !errors.As(err, &r) || r.Code != CodeNoSnapshot {
		t.Fatalf("got %v", err)
	}
}

// TestCheckFileSymlinkedRoot: roots are canonicalised too, so a workspace
// reached through a symlink works, and the canonical path is returned.
func TestCheckFileSymlinkedRoot(t *testing.T) {
	ft := newFileTree(t)
	link := filepath.Dir(ft.ws) + "/ws-link"
	if err := os.Symlink(ft.ws, link); err != nil {
		t.Fatal(err)
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, link, domain.KernelFeatures{LandlockABI: 7, Seccomp: true})
	got, err := CheckFile(s, "dir/b.txt", domain.AccessWrite)
	if err != nil || got != ft.ws+"/dir/b.txt" {
		t.Fatalf("got (%q, %v)", got, err)
	}
	if _, err := CheckFile(s, ".git/config", domain.AccessWrite); err == nil || !strings.Contains(err.Error(), CodeWriteRequiresWritable) {
		t.Fatalf("protected path through a symlinked root: %v", err)
	}
}
