package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"turnstile/domain"
)

const (
	rd = domain.AccessRead
	wr = domain.AccessWrite
)

// expectFile runs CheckFile and compares the refusal code ("" = allowed) and,
// when allowed and want is set, the resolved path.
func expectFile(t *testing.T, s *domain.TurnExecutionSecuritySnapshot, path string, op domain.Access, code, want string) {
	t.Helper()
	got, err := CheckFile(s, path, op)
	if code == "" {
		if err != nil {
			t.Errorf("%s %s: refused: %v", op, path, err)
		} else if want != "" && got != want {
			t.Errorf("%s %s: resolved %q, want %q", op, path, got, want)
		}
		return
	}
	var r *Refusal
	if !errors.As(err, &r) || r.Code != code {
		t.Errorf("%s %s: got (%q, %v), want %s", op, path, got, err, code)
	}
}

// TestCheckFileDotDotAfterSymlink: ".." applies to the directory a symlink
// led to, as in the kernel, never lexically before it.
func TestCheckFileDotDotAfterSymlink(t *testing.T) {
	base := tempWorkspace(t)
	ws, out := base+"/ws", base+"/outside"
	for _, d := range []string{ws + "/dir", ws + "/.git/hooks", out + "/sub"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{ws + "/secret.txt", ws + "/.git/config", out + "/secret.txt"} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for target, link := range map[string]string{out + "/sub": ws + "/d", ".git/hooks": ws + "/h", "dir": ws + "/in"} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	auto := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, domain.KernelFeatures{LandlockABI: 7, Seccomp: true})
	sup := snapshotFor(t, domain.ModeSupervised, ws, domain.KernelFeatures{LandlockABI: 7, Seccomp: true})
	expectFile(t, auto, "d/../secret.txt", rd, CodeSymlinkEscape, "")
	expectFile(t, sup, "d/../secret.txt", rd, CodeSymlinkEscape, "")
	expectFile(t, auto, "d/../pwn.txt", wr, CodeSymlinkEscape, "")
	expectFile(t, auto, ws+"/d/../pwn.txt", wr, CodeSymlinkEscape, "")
	// h -> .git/hooks: h/../config is .git/config, protected.
	expectFile(t, auto, "h/../config", wr, CodeWriteRequiresWritable, "")
	expectFile(t, auto, "h/../config", rd, "", ws+"/.git/config")
	// Controls: a link that stays inside, and ".." without a link.
	expectFile(t, auto, "in/../secret.txt", wr, "", ws+"/secret.txt")
	expectFile(t, auto, "dir/../secret.txt", rd, "", ws+"/secret.txt")
	expectFile(t, auto, "d/../../ws/secret.txt", rd, "", ws+"/secret.txt")
}

// TestCheckFileSymlinkHops: a lookup follows at most 40 links (ELOOP after
// 40, as the kernel).
func TestCheckFileSymlinkHops(t *testing.T) {
	ws := tempWorkspace(t)
	if err := os.WriteFile(ws+"/target", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	// l0 -> l1 -> ... -> l40 -> target: l0 takes 41 links, l1 takes 40.
	for i := 40; i >= 0; i-- {
		next := "l" + strconv.Itoa(i+1)
		if i == 40 {
			next = "target"
		}
		if err := os.Symlink(next, fmt.Sprintf("%s/l%d", ws, i)); err != nil {
			t.Fatal(err)
		}
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, domain.KernelFeatures{LandlockABI: 7, Seccomp: true})
	expectFile(t, s, "l1", rd, "", ws+"/target")
	expectFile(t, s, "l0", rd, CodeInvalidPath, "")
	if _, err := os.ReadFile(ws + "/l1"); err != nil {
		t.Fatalf("the kernel follows 40 links: %v", err)
	}
	if _, err := os.ReadFile(ws + "/l0"); err == nil {
		t.Fatal("the kernel followed 41 links: the checker's bound is wrong")
	}
}

// TestCheckFileFutureRootThroughSymlink: a project root that does not exist
// yet, under a symlinked ancestor that leads out, does not grant where the
// link leads: a write below it is symlink_escape.
func TestCheckFileFutureRootThroughSymlink(t *testing.T) {
	base := tempWorkspace(t)
	ws, out := base+"/ws", base+"/outside"
	for _, d := range []string{ws, out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(out, ws+"/link-out"); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []domain.Mode{domain.ModeAutoAcceptEdits, domain.ModeSupervised} {
		s, err := domain.ResolveSnapshot(domain.SnapshotInputs{
			Profile: domain.ResolveProfile(&domain.ProfileRequest{Mode: mode}, domain.SourceComposer),
			Cwd:     ws, WorkspaceRoot: base + "/elsewhere", ProjectRoots: []string{ws + "/link-out/future", ws + "/real/future"},
		})
		if err != nil {
			t.Fatal(err)
		}
		a := s.Approvable()
		expectFile(t, &a, ws+"/link-out/future/x.txt", wr, CodeSymlinkEscape, "")
		expectFile(t, &a, out+"/future/x.txt", wr, CodeOutsideAllowedRoots, "")
		// Control: a future root with no symlink above it is writable.
		expectFile(t, &a, ws+"/real/future/x.txt", wr, "", ws+"/real/future/x.txt")
	}
}

// TestCheckFileMissingRead: a read of a missing path is judged as a read
// where it would be: missing_path inside a root (read-only roots included),
// the usual refusal outside.
func TestCheckFileMissingRead(t *testing.T) {
	ft := newFileTree(t)
	sup := ft.snapshot(t, domain.ModeSupervised)
	auto := ft.snapshot(t, domain.ModeAutoAcceptEdits)
	expectFile(t, sup, "src/missing.txt", rd, CodeMissingPath, "")
	expectFile(t, auto, "/etc/turnstile-missing", rd, CodeMissingPath, "")
	expectFile(t, auto, ft.out+"/missing.txt", rd, CodeOutsideAllowedRoots, "")
	expectFile(t, auto, "link-out/missing.txt", rd, CodeSymlinkEscape, "")
	// Controls: the same places exist or are written.
	expectFile(t, sup, "a.txt", rd, "", ft.ws+"/a.txt")
	expectFile(t, auto, "src/missing.txt", wr, "", ft.ws+"/src/missing.txt")
}

// TestCheckFileSensitive: process environments and memory, kernel memory,
// shadow files and credential stores are refused, read and write, in every
// restricted mode, however they are named; nearby paths stay readable.
func TestCheckFileSensitive(t *testing.T) {
	ft := newFileTree(t)
	if err := os.Symlink("/etc/shadow", ft.ws+"/shadow-link"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/proc/self", ft.ws+"/me"); err != nil {
		t.Fatal(err)
	}
	pid := strconv.Itoa(os.Getpid())
	sensitive := []string{
		"/proc/self/environ", "/proc/" + pid + "/environ", "/proc/1/environ", "/proc/thread-self/environ",
		"/proc/" + pid + "/task/" + pid + "/environ", "/proc/self/mem", "/proc/" + pid + "/mem", "/proc/kcore",
		"/etc/shadow", "/etc/gshadow", "/etc/../etc/shadow", "shadow-link", "me/environ", "me/root/proc/self/environ",
		"/proc/self/root/etc/shadow", "/root/.ssh/id_ed25519", "/root/.ssh", "/home/bob/.aws/credentials",
		"/root/.config/gcloud/credentials.db", "/root/.netrc", "/home/bob/.docker/config.json", "/root/.kube/config",
		"/root/.local/share/keyrings/login.keyring", "/home/bob/.gnupg/private-keys-v1.d",
	}
	for _, mode := range []domain.Mode{domain.ModeAutoAcceptEdits, domain.ModeSupervised} {
		s := ft.snapshot(t, mode)
		a := s.Approvable()
		for _, p := range sensitive {
			for _, op := range []domain.Access{rd, wr} {
				expectFile(t, s, p, op, CodeSensitivePath, "")
				expectFile(t, &a, p, op, CodeSensitivePath, "")
			}
		}
		// Controls: the same system roots stay readable.
		for _, p := range []string{"/etc/passwd", "/proc/" + pid + "/status", "/proc/cpuinfo", "/proc/" + pid + "/cmdline"} {
			expectFile(t, s, p, rd, "", "")
		}
	}
	expectFile(t, ft.snapshot(t, domain.ModeFullAccess), "/proc/self/environ", rd, "", "")
}

// TestCheckFileExtraSensitive: a path given as SnapshotInputs.SensitivePaths
// (the server's data directory) is refused like the built-in list, even
// inside a writable root, and so is a hard link to a sensitive file.
func TestCheckFileExtraSensitive(t *testing.T) {
	ws := tempWorkspace(t)
	if err := os.MkdirAll(ws+"/data", 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ws+"/data/token", []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := domain.ResolveSnapshot(domain.SnapshotInputs{
		Profile: domain.ResolveProfile(&domain.ProfileRequest{Mode: domain.ModeAutoAcceptEdits}, domain.SourceComposer),
		Cwd:     ws, WorkspaceRoot: ws, SensitivePaths: []string{ws + "/data", ws + "/data/token"},
	})
	if err != nil {
		t.Fatal(err)
	}
	// A hard link is another name for the same file.
	if err := os.Link(ws+"/data/token", ws+"/hardlink"); err != nil {
		t.Fatal(err)
	}
	expectFile(t, &s, "hardlink", rd, CodeSensitivePath, "")
	expectFile(t, &s, "data/token", rd, CodeSensitivePath, "")
	expectFile(t, &s, "data/new", wr, CodeSensitivePath, "")
	expectFile(t, &s, "other", wr, "", ws+"/other")
}

// TestCheckTree: a recursive read of a directory holding a sensitive path is
// refused; a tree without one is allowed.
func TestCheckTree(t *testing.T) {
	ft := newFileTree(t)
	s := ft.snapshot(t, domain.ModeSupervised)
	if err := os.Symlink("/etc", ft.ws+"/etc-link"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/etc", "/proc", "/proc/self", "/proc/thread-self", "/proc/" + strconv.Itoa(os.Getpid()), "etc-link", "/usr/../etc"} {
		if _, err := CheckTree(s, p); err == nil || !strings.Contains(err.Error(), CodeSensitivePath) {
			t.Errorf("tree %s: %v", p, err)
		}
	}
	// A tree through a link that leads somewhere else in each process,
	// with nothing sensitive below it by name, is refused as such.
	for _, p := range []string{"/proc/self/cwd", "/proc/thread-self/root/usr", "/dev/fd"} {
		if _, err := CheckTree(s, p); err == nil || !strings.Contains(err.Error(), CodeInvalidPath) {
			t.Errorf("tree %s: %v", p, err)
		}
	}
	for _, p := range []string{".", "dir", "/usr/share", "/etc/ssl/certs"} {
		if _, err := CheckTree(s, p); err != nil {
			t.Errorf("tree %s: %v", p, err)
		}
	}
}

// TestCheckFileSensitiveUnderProfiles: the built-in profiles' snapshots
// (":read-only", ":workspace") refuse the sensitive paths as the modes do;
// ":danger-full-access" confines nothing.
func TestCheckFileSensitiveUnderProfiles(t *testing.T) {
	ft := newFileTree(t)
	for name := range domain.BuiltinModes {
		env := domain.ProfileEnv{Cwd: ft.ws, WorkspaceRoot: ft.ws}
		cp, err := domain.CompileProfile(nil, name, env, nil)
		if err != nil {
			t.Fatal(err)
		}
		s, err := domain.ResolveProfileSnapshot(cp, domain.SourceComposer, domain.SnapshotInputs{Cwd: ft.ws, WorkspaceRoot: ft.ws})
		if err != nil {
			t.Fatal(err)
		}
		a := s.Approvable()
		if s.Sandbox.Filesystem.Unrestricted {
			expectFile(t, &a, "/etc/shadow", rd, "", "/etc/shadow") // full access: nothing is confined
			continue
		}
		for _, p := range []string{"/etc/shadow", "/proc/self/environ", "/root/.ssh/id_ed25519"} {
			expectFile(t, &a, p, rd, CodeSensitivePath, "")
			expectFile(t, &a, p, wr, CodeSensitivePath, "")
		}
		expectFile(t, &a, "/etc/passwd", rd, "", "")
	}
}
