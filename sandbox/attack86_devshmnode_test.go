package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// TestAttack86_DeviceNodeInWritableRootUnderDev (eighty-sixth review): the
// eighty-fifth review's fix mounts a writable root's clone nodev "except
// under /dev" (rootview.go buildRootView: !domain.PathWithin(r.path,
// "/dev")), meaning /dev's own device grants (/dev/null, …). The test is on
// the root's path, not on what the root is: a workspace kept in RAM under
// /dev/shm (a CI runner's scratch, /dev/shm/ci/ws) is a writable root
// under /dev, root-owned and not world-writable (so idmapped to the
// sandbox uid, not a shared dir), and its clone is neither nodev nor
// anything but the id map. A root-owned 0600 block device node in it (an
// image's /dev a build unpacked there) is the command's own: the attack85
// raw-disk read and write, where the host's /dev/shm is not mounted nodev
// (it is not on this host; systemd and container runtimes mount it nodev,
// where the test is skipped).
//
// Root cause: sandbox/rootview.go buildRootView exempts every writable
// root whose path lies under /dev from MOUNT_ATTR_NODEV.
//
// Fix: exempt only the device files the snapshot grants
// (domain.DeviceFiles: a root that is itself a device node, or /dev/pts),
// not a directory root under /dev; or set nodev on every writable root and
// bind the granted device files back after, as the full_access view does.
//
// Control: the host reads the marker through the node; the command reads
// and rewrites a root-owned 0600 regular file in the same root (the id
// map at work).
func TestAttack86_DeviceNodeInWritableRootUnderDev(t *testing.T) {
	requireRoot(t)
	f := requireKernel(t, true)
	if _, err := exec.LookPath("losetup"); err != nil {
		missingPrerequisite(t, "losetup is not installed: %v", err)
	}
	var sfs unix.Statfs_t
	if err := unix.Statfs("/dev/shm", &sfs); err != nil {
		missingPrerequisite(t, "no /dev/shm: %v", err)
	}
	if sfs.Flags&unix.ST_NODEV != 0 {
		t.Skip("the host's /dev/shm is mounted nodev: no device node opens there")
	}
	const marker = "RAW-DEVICE-MARKER-86"
	base, err := os.MkdirTemp("/dev/shm", "turnstile-a86-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	imgDir := visibleWorkspace(t)
	img := imgDir + "/disk.img"
	if err := os.WriteFile(img, []byte(marker), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, 1<<20); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("losetup", "-f", "--show", img).Output()
	if err != nil {
		t.Fatalf("losetup: %v", err)
	}
	loop := strings.TrimSpace(string(out))
	t.Cleanup(func() { exec.Command("losetup", "-d", loop).Run() })
	var st unix.Stat_t
	if err := unix.Stat(loop, &st); err != nil {
		t.Fatal(err)
	}
	ws := base + "/ws"
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mknod(ws+"/blk", unix.S_IFBLK|0o600, int(st.Rdev)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ws+"/root-file", []byte("root's file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(ws + "/blk"); err != nil || !strings.HasPrefix(string(b), marker) {
		t.Fatalf("control: the host does not read the marker through %s/blk: %v", ws, err)
	}

	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, `cd `+ws+` && cat root-file && echo rewritten > root-file && echo wrote-file
head -c 20 blk && echo
printf OVERWRITTEN-BY-AGENT | dd of=blk conv=notrunc 2>/dev/null && echo wrote-device`)
	t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s", r.ExitCode, r.Stdout, r.Stderr)
	stdout := string(r.Stdout)
	if !strings.Contains(stdout, "root's file") || !strings.Contains(stdout, "wrote-file") {
		t.Fatalf("control: the command could not read and rewrite a root-owned file in its writable root: %q %q", r.Stdout, r.Stderr)
	}
	if strings.Contains(stdout, marker) {
		t.Errorf("a restricted command read the raw block device %s through the root-owned node %s/blk in its writable root under /dev/shm", loop, ws)
	}
	dev, err := os.ReadFile(ws + "/blk")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stdout, "wrote-device") || strings.HasPrefix(string(dev), "OVERWRITTEN-BY-AGENT") {
		t.Errorf("a restricted command wrote the raw block device %s (now begins %q)", loop, dev[:20])
	}
}
