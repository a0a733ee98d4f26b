package sandbox

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// TestAttack113_SecondProcfsKernelControl (hundred-and-thirteenth review):
// a command that holds the whole tree under a root server keeps uid 0
// without capabilities, and hardenWholeTree makes the kernel's control
// filesystems and the PID namespace's /proc/sys read-only. It does not do
// what full_access's mountOwnProc does: cover every OTHER procfs mount with
// the namespace's own. A host with a second procfs mount (a chroot's /proc,
// a build root's: the README names "a chroot's /proc" as a host shape) hands
// the command the host's procfs, read-write, at that path:
// <chroot>/proc/sys/kernel/core_pattern takes a program that runs as the
// real root at the next crash, and <chroot>/proc/sysrq-trigger and every
// host pid are there too.
//
// The test makes that second procfs in a private mount namespace of its
// own thread (nothing on the host changes) and writes core_pattern's own
// value back through it.
//
// Controls: the same write through /proc/sys is refused (the fix's path);
// the same second-procfs write from a full_access command is refused
// (mountOwnProc covers it); and the host itself can write it (the write is
// a valid one).
func TestAttack113_SecondProcfsKernelControl(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("uid 0 is a root server's")
	}
	f := requireKernel(t, true)
	// A private mount namespace for this thread (the helper is forked from
	// it and inherits it); the thread is never unlocked, so it dies with
	// the test's goroutine.
	runtime.LockOSThread()
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		t.Fatalf("unshare: %v", err)
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		t.Fatalf("make / private: %v", err)
	}
	chroot := visibleWorkspace(t)
	procDir := chroot + "/proc"
	if err := os.Mkdir(procDir, 0o555); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("proc", procDir, "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		t.Fatalf("mount a second procfs: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(procDir, unix.MNT_DETACH) })
	before, err := os.ReadFile("/proc/sys/kernel/core_pattern")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if after, _ := os.ReadFile("/proc/sys/kernel/core_pattern"); string(after) != string(before) {
			t.Errorf("core_pattern changed: %q -> %q", before, after)
		}
	})
	write := func(p string) string {
		return `v=$(cat ` + p + `) && printf '%s\n' "$v" > ` + p
	}
	script := write(procDir+"/sys/kernel/core_pattern") + ` && echo SECOND_PROCFS_WRITTEN
` + write("/proc/sys/kernel/core_pattern") + ` && echo OWN_PROC_WRITTEN
id -u`

	// Control: the host writes it (the same value).
	if err := os.WriteFile(procDir+"/sys/kernel/core_pattern", before, 0); err != nil {
		t.Fatalf("control: the host cannot write its own core_pattern through the second procfs: %v", err)
	}
	// The gateway's data directory, as a server's snapshots name it.
	data := visibleWorkspace(t)
	secret := domain.FilesystemEntry{Kind: domain.PathSensitive, Path: data, ResolvedPath: data, Access: domain.AccessDeny, Provenance: domain.ProvenanceSystem}
	// Control: a full_access command finds the second procfs covered. (A
	// root server runs full_access only through the static helper: the
	// test binary is linked dynamically under the README's go test.)
	useStaticHelper(t)
	ws := visibleWorkspace(t)
	fa := snapshotFor(t, domain.ModeFullAccess, ws, f.Kernel)
	fa.Sandbox.Filesystem.Entries = append(fa.Sandbox.Filesystem.Entries, secret)
	r := sh(t, fa, script)
	if strings.Contains(string(r.Stdout), "WRITTEN") || !strings.HasSuffix(strings.TrimSpace(string(r.Stdout)), "0") {
		t.Fatalf("control: a full_access command wrote a kernel control: %s %s", r.Stdout, r.Stderr)
	}

	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	s.Sandbox.Filesystem.Entries = append(s.Sandbox.Filesystem.Entries, secret,
		domain.FilesystemEntry{Kind: domain.PathExplicit, Path: "/", ResolvedPath: "/", Access: domain.AccessWrite, Provenance: domain.ProvenanceTaskCap})
	walkCache.mu.Lock()
	for _, k := range []string{"/", "/\x00deep"} {
		walkCache.m[k] = walkResult{made: time.Now().Add(time.Hour)} // see TestWritableSlashStaysWritable
	}
	walkCache.mu.Unlock()
	t.Cleanup(func() {
		walkCache.mu.Lock()
		walkCache.m = map[string]walkResult{}
		walkCache.mu.Unlock()
	})
	r = sh(t, s, script)
	out := string(r.Stdout)
	t.Logf("writable /: stdout %q stderr %q", out, r.Stderr)
	if !strings.HasSuffix(strings.TrimSpace(out), "0") {
		t.Fatalf("premise: the command of a writable / is not uid 0: %q %s", out, r.Stderr)
	}
	if strings.Contains(out, "OWN_PROC_WRITTEN") {
		t.Fatalf("control: the namespace's own /proc/sys was writable (the fix's path): %s", out)
	}
	if strings.Contains(out, "SECOND_PROCFS_WRITTEN") {
		t.Errorf("a command granted / for writing, as uid 0, wrote the host's kernel.core_pattern through a second procfs mount (%s): a program there runs as the real root", procDir)
	}

	// The other whole-tree shape: a filesystem left unrestricted with the
	// network disabled (a profile's ":root" = "write" without a network
	// table).
	open := snapshotFor(t, domain.ModeFullAccess, ws, f.Kernel)
	open.Sandbox.Filesystem.Entries = append(open.Sandbox.Filesystem.Entries, secret)
	open.Network = domain.NetworkPolicy{Mode: domain.NetworkDisabled} // a profile without a network table
	r = sh(t, open, script)
	out = string(r.Stdout)
	t.Logf("unrestricted files, no network: stdout %q stderr %q", out, r.Stderr)
	if !strings.HasSuffix(strings.TrimSpace(out), "0") || strings.Contains(out, "OWN_PROC_WRITTEN") {
		t.Fatalf("premise/control: %q %s", out, r.Stderr)
	}
	if strings.Contains(out, "SECOND_PROCFS_WRITTEN") {
		t.Errorf("a command with an unrestricted filesystem and no network, as uid 0, wrote the host's kernel.core_pattern through a second procfs mount (%s)", procDir)
	}
}
