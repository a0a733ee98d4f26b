package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// TestOverlayWritesStayTheCommands: a profile's "overlay" directory (a
// build cache the host's tools trust, owned by root) is writable to the
// command, which reads what is there and its own writes (new files, a file
// it appended to, a directory), while the directory itself is never
// written: after the command, and for the next command, it holds what it
// held. A deny inside it stays hidden. Control: a "write" directory of the
// same profile is written for real, and so is the workspace around an
// overlay directory inside it.
func TestOverlayWritesStayTheCommands(t *testing.T) {
	requireRoot(t)
	f := requireKernel(t, true)
	base := visibleWorkspace(t)
	ws, cache, wcache := base+"/ws", base+"/cache", base+"/wcache"
	for _, d := range []string{ws + "/vendor", cache + "/00", cache + "/deny", wcache} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, body := range map[string]string{cache + "/00/f": "host\n", cache + "/deny/secret": "s3cret\n", ws + "/vendor/lib": "v1\n"} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := overlaySnapshot(ws, cache, wcache, filepathDir(testExe(t)), f.Kernel)
	if err != nil {
		t.Fatal(err)
	}
	sh := func(script string) *Result {
		t.Helper()
		script = "C=" + cache + "; W=" + wcache + "\n" + script
		r, err := run(t, &s, SpawnRequest{Argv: []string{"/bin/sh", "-c", script}}, nil)
		if err != nil {
			t.Fatalf("%v (%+v)", err, r)
		}
		return r
	}
	r := sh(`set -e; echo new > "$C/00/new"; echo mine >> "$C/00/f"; mkdir "$C/d"; echo x > "$C/d/x"; cat "$C/00/f" "$C/00/new" "$C/d/x"
id -u; echo w > "$W/f"; cat "$C/deny/secret" 2>/dev/null || echo denied
echo v2 > vendor/lib; echo n > vendor/new; echo ws > f; cat vendor/lib`)
	if r.ExitCode != 0 || string(r.Stdout) != "host\nmine\nnew\nx\n"+strconv.Itoa(SandboxUID)+"\ndenied\nv2\n" {
		t.Fatalf("the command in its overlay: exit %d, stdout %q, stderr %q", r.ExitCode, r.Stdout, r.Stderr)
	}
	if b, err := os.ReadFile(cache + "/00/f"); err != nil || string(b) != "host\n" {
		t.Fatalf("the directory's file was written: %q %v", b, err)
	}
	for _, p := range []string{cache + "/00/new", cache + "/d"} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Fatalf("%s was created in the directory itself: %v", p, err)
		}
	}
	if b, err := os.ReadFile(wcache + "/f"); err != nil || string(b) != "w\n" {
		t.Fatalf("control: the write directory was not written: %q %v", b, err)
	}
	// An overlay inside the writable workspace: the workspace is written,
	// the overlay's directory in it is not.
	if b, err := os.ReadFile(ws + "/vendor/lib"); err != nil || string(b) != "v1\n" {
		t.Fatalf("the workspace's overlay directory was written: %q %v", b, err)
	}
	if _, err := os.Lstat(ws + "/vendor/new"); !os.IsNotExist(err) {
		t.Fatalf("a file was created in the workspace's overlay directory: %v", err)
	}
	if b, err := os.ReadFile(ws + "/f"); err != nil || string(b) != "ws\n" {
		t.Fatalf("control: the workspace was not written: %q %v", b, err)
	}
	r = sh(`cat "$C/00/f"; ls "$C/00"; test -e "$C/d" && echo d; true`)
	if got := string(r.Stdout); got != "host\nf\n" || r.ExitCode != 0 {
		t.Fatalf("the next command sees %q (exit %d, %s): the first one's writes went with it", got, r.ExitCode, r.Stderr)
	}
}

// overlaySnapshot is a profile over ws whose cache is "overlay", with
// cache/deny denied and wcache (when not empty) "write".
func overlaySnapshot(ws, cache, wcache, exeDir string, k domain.KernelFeatures) (domain.TurnExecutionSecuritySnapshot, error) {
	fs := map[string]domain.Access{cache: domain.AccessOverlay, cache + "/deny": domain.AccessDeny, ws + "/vendor": domain.AccessOverlay}
	if wcache != "" {
		fs[wcache] = domain.AccessWrite
	}
	set := domain.ProfileSet{"ov": {Name: "ov", Extends: domain.BuiltinWorkspace, Filesystem: fs}}
	cp, err := domain.CompileProfile(set, "ov", domain.ProfileEnv{Cwd: ws, WorkspaceRoot: ws, AppReadRoots: []string{exeDir}}, nil)
	if err != nil {
		return domain.TurnExecutionSecuritySnapshot{}, err
	}
	return domain.ResolveProfileSnapshot(cp, domain.SourceComposer, domain.SnapshotInputs{Cwd: ws, WorkspaceRoot: ws,
		AppReadRoots: []string{exeDir}, Kernel: k})
}

// TestOverlayUnprivilegedServer: the same overlay made by a server that is
// not root (the helper's namespaces start with a user namespace, where
// overlay keeps its attributes in user.* xattrs): the command, as the
// server's user, writes its copy of the user's cache; the cache itself
// keeps what it held.
func TestOverlayUnprivilegedServer(t *testing.T) {
	requireKernel(t, true)
	uid, gid := unprivilegedUser(t)
	base := visibleWorkspace(t)
	exe, ws, cache := base+"/sandbox.test", base+"/ws", base+"/cache"
	data, err := os.ReadFile(testExe(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{ws, cache + "/00"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(cache+"/00/f", []byte("host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{ws, cache, cache + "/00", cache + "/00/f"} {
		if err := os.Chown(p, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	c := exec.Command(exe, testProbeArg, "overlay-sh", ws, cache, `echo mine >> "$0/00/f" && echo new > "$0/00/new" && cat "$0/00/f" && id -u`)
	c.Dir, c.Env = ws, []string{"PATH=/usr/bin:/bin"}
	c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	b, err := c.CombinedOutput()
	if err != nil || !strings.HasPrefix(string(b), "host\nmine\n"+strconv.Itoa(uid)+"\n") {
		t.Fatalf("the command in its overlay, as user %d: %v\n%s", uid, err, b)
	}
	if b, err := os.ReadFile(cache + "/00/f"); err != nil || string(b) != "host\n" {
		t.Fatalf("the cache's file was written: %q %v", b, err)
	}
	if _, err := os.Lstat(cache + "/00/new"); !os.IsNotExist(err) {
		t.Fatalf("a file was created in the cache itself: %v", err)
	}
}

// overlayProbe runs, for the "overlay-sh" probe (WS CACHE SCRIPT), SCRIPT
// with CACHE as $0 under overlaySnapshot, printing its output.
func overlayProbe(ws, cache, script string) error {
	f := Probe()
	s, err := overlaySnapshot(ws, cache, "", filepath.Dir(os.Args[0]), f.Kernel)
	if err != nil {
		return err
	}
	return runPrinting(&s, "/bin/sh", "-c", script, cache)
}

// TestOverlayMountByPath: the overlay made with its layers named as
// /proc/self/fd paths (the way before Linux 6.13, which overlayTree falls
// back to) works as the one made with descriptors: written through, the
// lower layer keeps what it held. Run in a mount namespace of a
// subprocess (the test binary again).
func TestOverlayMountByPath(t *testing.T) {
	requireRoot(t)
	lower := visibleWorkspace(t)
	if err := os.WriteFile(lower+"/f", []byte("host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, byPath := range []string{"fd", "path"} {
		b, err := exec.Command(testExe(t), testProbeArg, "overlay-mount", lower, byPath).CombinedOutput()
		if err != nil || !strings.HasPrefix(string(b), "host\nmine\n") {
			t.Fatalf("%s: %v\n%s", byPath, err, b)
		}
		if b, err := os.ReadFile(lower + "/f"); err != nil || string(b) != "host\n" {
			t.Fatalf("%s: the lower layer was written: %q %v", byPath, b, err)
		}
	}
}

// overlayMountProbe, for the "overlay-mount" probe (LOWER fd|path): in a
// new mount namespace, mounts an overlay of LOWER (its layers given as
// descriptors or paths) on LOWER, appends to its file f and prints it.
func overlayMountProbe(lower, how string) error {
	runtime.LockOSThread()
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return err
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return err
	}
	tree, err := cloneTree(lower)
	if err != nil {
		return err
	}
	scratch, err := newFS("tmpfs", [][2]string{{"size", "1m"}}, 0)
	if err != nil {
		return err
	}
	unix.Mkdirat(scratch, "u", 0o755)
	unix.Mkdirat(scratch, "w", 0o700)
	u, err := unix.Openat(scratch, "u", unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	w, err := unix.Openat(scratch, "w", unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	ov, err := overlayMount(tree, u, w, how == "path", false)
	if err != nil {
		return err
	}
	if err := unix.MoveMount(ov, "", unix.AT_FDCWD, lower, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return err
	}
	f, err := os.OpenFile(lower+"/f", os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	f.WriteString("mine\n")
	f.Close()
	b, err := os.ReadFile(lower + "/f")
	os.Stdout.Write(b)
	return err
}

// TestOverlayInViewKey: two policies that differ only in an entry's
// overlay mark are two views (a cached view's grants carry the mark).
func TestOverlayInViewKey(t *testing.T) {
	e := domain.FilesystemEntry{Kind: domain.PathExplicit, Path: "/c", ResolvedPath: "/c", Access: domain.AccessRead}
	o := e
	o.Overlay = true
	if fsViewKey(&domain.FilesystemPolicy{Entries: []domain.FilesystemEntry{e}}) == fsViewKey(&domain.FilesystemPolicy{Entries: []domain.FilesystemEntry{o}}) {
		t.Fatal("a read root and an overlay root share a view key")
	}
}
