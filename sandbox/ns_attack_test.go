package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// TestWritableRootCannotBeMovedAside: a writable root is a mount point in
// the view, so neither it nor its parent can be renamed or removed from
// inside (the parent is read-only); control: renaming inside it works.
func TestWritableRootCannotBeMovedAside(t *testing.T) {
	f := requireKernel(t, true)
	base := visibleWorkspace(t)
	ws := base + "/ws"
	os.MkdirAll(ws+"/sub", 0o755)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	for _, script := range []string{`mv "$PWD" "$PWD.old"`, `mv "$(dirname "$PWD")" "$(dirname "$PWD").old"`, `rmdir "$PWD"`, `mkdir ../planted`} {
		if r := sh(t, s, script); r.ExitCode == 0 {
			t.Errorf("%s succeeded", script)
		}
	}
	if !exists(ws+"/sub") || exists(base+"/planted") || exists(ws+".old") {
		t.Fatal("the workspace moved")
	}
	if r := sh(t, s, "mv sub sub2 && test -d sub2"); r.ExitCode != 0 {
		t.Fatalf("control: rename inside the workspace: %s", r.Stderr)
	}
}

// TestCloneTreeRefusesSymlinkedAncestor: a root whose ancestor became a
// symlink after canonicalisation (swapped by a command of the same turn) is
// not cloned or mounted through the link. Control: the real path clones.
func TestCloneTreeRefusesSymlinkedAncestor(t *testing.T) {
	requireRoot(t) // open_tree(OPEN_TREE_CLONE) needs CAP_SYS_ADMIN
	d := tempWorkspace(t)
	os.MkdirAll(d+"/real/root", 0o755)
	os.Symlink("real", d+"/link")
	if fd, err := cloneTree(d + "/link/root"); err == nil {
		unix.Close(fd)
		t.Fatal("cloned through a symlinked ancestor")
	} else if !errors.Is(err, unix.ELOOP) {
		t.Fatalf("error %v, want ELOOP", err)
	}
	fd, err := cloneTree(d + "/real/root")
	if err != nil {
		t.Fatalf("control: %v", err)
	}
	unix.Close(fd)
}

// TestNestedNamespaceCannotUndoView: a command that makes its own user and
// mount namespaces (unshare -Urm) cannot mount over the view (a tmpfs on
// /proc would hide the namespace's own procfs; on a read-only directory it
// would give a writable place), remount it writable, or chmod outside its
// roots. Control: unsandboxed, the same unshare, mount and chmod work.
func TestNestedNamespaceCannotUndoView(t *testing.T) {
	f := requireKernel(t, true)
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Fatal("unshare (util-linux) is needed for this test")
	}
	base := visibleWorkspace(t)
	ws, sib := base+"/ws", base+"/sib"
	os.Mkdir(ws, 0o755)
	os.WriteFile(sib, []byte("x"), 0o644)
	script := unshare + ` -Urm sh -c 'chmod 777 ` + sib + ` && echo chmodded; mount -o remount,rw / && echo remounted; mount -t tmpfs t ` + base + ` && echo mounted'`
	for _, mode := range []domain.Mode{domain.ModeAutoAcceptEdits, domain.ModeSupervised} {
		r := sh(t, snapshotFor(t, mode, ws, f.Kernel), script)
		out := string(r.Stdout)
		if strings.Contains(out, "mounted") || strings.Contains(out, "chmodded") {
			t.Errorf("%s: %s %s", mode, out, r.Stderr)
		}
	}
	if fi, err := os.Stat(sib); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("the sibling changed: %v %v", fi, err)
	}
	r := sh(t, snapshotFor(t, domain.ModeFullAccess, ws, f.Kernel), script)
	if !strings.Contains(string(r.Stdout), "mounted\n") || !strings.Contains(string(r.Stdout), "chmodded") {
		t.Fatalf("control: unsandboxed unshare + mount + chmod: %s %s", r.Stdout, r.Stderr)
	}
}

// TestWritableSlashStaysWritable: a snapshot that grants "/" itself for
// writing (a profile may) keeps the tree writable in the view and the
// command's uid (nothing to re-bind on top of "/").
func TestWritableSlashStaysWritable(t *testing.T) {
	f := requireKernel(t, true)
	base := visibleWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, base, f.Kernel)
	s.Sandbox.Filesystem.Entries = append(s.Sandbox.Filesystem.Entries,
		domain.FilesystemEntry{Kind: domain.PathExplicit, Path: "/", ResolvedPath: "/", Access: domain.AccessWrite, Provenance: domain.ProvenanceTaskCap})
	outside := "/var/tmp/turnstile-slash-" + token()
	t.Cleanup(func() { os.Remove(outside) })
	// A writable / is walked for the repositories it holds, the whole
	// machine's: other tests' and other processes' among them (one on a
	// full loop file system of another test run made the hold of its
	// .git/hooks fail). What this test judges is / itself: the walks
	// answer none.
	walkCache.mu.Lock()
	for _, k := range []string{"/", "/\x00deep"} {
		walkCache.m[k] = walkResult{made: time.Now().Add(time.Hour)}
	}
	walkCache.mu.Unlock()
	t.Cleanup(func() {
		walkCache.mu.Lock()
		walkCache.m = map[string]walkResult{}
		walkCache.mu.Unlock()
	})
	r := sh(t, s, "id -u; echo x > "+outside)
	if r.ExitCode != 0 || !exists(outside) || strings.TrimSpace(string(r.Stdout)) != strconv.Itoa(os.Geteuid()) {
		t.Fatalf("writable /: %s %s", r.Stdout, r.Stderr)
	}
}

// TestHostSysVIPCHidden: a System V shared memory segment the host made
// world-readable (as X11's MIT-SHM or a database's may be) cannot be
// attached from the sandbox (IPC namespace); control: unsandboxed it can.
func TestHostSysVIPCHidden(t *testing.T) {
	f := requireKernel(t, true)
	id, err := unix.SysvShmGet(unix.IPC_PRIVATE, 4096, unix.IPC_CREAT|0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.SysvShmCtl(id, unix.IPC_RMID, nil) })
	b, err := unix.SysvShmAttach(id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	copy(b, "shm-s3cret")
	unix.SysvShmDetach(b)
	ws := tempWorkspace(t)
	exeDir := filepathDir(testExe(t))
	for _, mode := range []domain.Mode{domain.ModeAutoAcceptEdits, domain.ModeSupervised} {
		if r := probeIn(t, snapshotFor(t, mode, ws, f.Kernel, exeDir), "shm-read", strconv.Itoa(id)); r.ExitCode != 1 || strings.Contains(string(r.Stdout), "s3cret") {
			t.Errorf("%s: %s", mode, r.Stdout)
		}
	}
	if r := probeIn(t, snapshotFor(t, domain.ModeFullAccess, ws, f.Kernel), "shm-read", strconv.Itoa(id)); !strings.Contains(string(r.Stdout), "shm shm-s3cret") {
		t.Fatalf("control: unsandboxed: %s", r.Stdout)
	}
}
