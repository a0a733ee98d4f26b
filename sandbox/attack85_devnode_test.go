package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// TestAttack85_DeviceNodeInWritableRoot (eighty-fifth review, medium-high
// where it applies: a restricted command reads and writes a raw block
// device, i.e. the whole disk: the gateway's data directory and token, and
// any file of the host). Under a root server a restricted command runs as
// the unprivileged sandbox uid, and each writable root is an idmapped clone
// that maps the root's owner (root, for a root-owned workspace) to that
// uid (rootview.go: buildRootView, idmapFor). Nothing in the restricted
// view is nodev: neither "/" nor the writable clones (the full_access view
// sets MOUNT_ATTR_NODEV everywhere, and its test tries "a block node ...
// outside /dev"; the overlay and the hidden areas' tmpfs are nodev; the
// writable clones are not). Landlock grants a writable root every right,
// read_file, write_file and ioctl_dev included. So a device node that lies
// in a writable root and belongs to the root's owner (root: what mknod,
// tar x, cp -a or rsync -a as root leave in an image or rootfs tree, a
// static /dev of a buildroot or busybox rootfs, a loop-mounted image's
// /dev, a partition node a build script made) is the command's own:
// owner rw. The command opens it and reads and writes the device the
// node's numbers name on the host (here a loop device over an image with a
// marker; on a machine with a static rootfs, sda).
//
// Controls: the host reads the marker through the node (it is valid); the
// same command reads and rewrites a root-owned 0600 regular file in the
// workspace (the idmap at work, the same kind of access, allowed).
//
// Fix: mount the restricted view nodev: MOUNT_ATTR_NODEV on every clone
// buildRootView attaches (writable roots and re-attached read roots, with
// AT_RECURSIVE), and on "/" recursively, binding back only the device
// files the snapshot grants (domain.DeviceFiles), cloned before, as
// cloneDevNodes/mountDev do for full_access. No command needs a device
// node inside its roots; one that does should be named by a profile like
// /dev/null is.
func TestAttack85_DeviceNodeInWritableRoot(t *testing.T) {
	requireRoot(t)
	f := requireKernel(t, true)
	if _, err := exec.LookPath("losetup"); err != nil {
		missingPrerequisite(t, "losetup is not installed: %v", err)
	}
	const marker = "RAW-DEVICE-MARKER-85"
	base := visibleWorkspace(t) // root-owned, outside /tmp
	img := base + "/disk.img"
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
	// A root-owned block node in the workspace, mode 0600: no one but
	// root may open it on the host.
	if err := unix.Mknod(ws+"/blk", unix.S_IFBLK|0o600, int(st.Rdev)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ws+"/root-file", []byte("root's file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Control: the node is valid.
	if b, err := os.ReadFile(ws + "/blk"); err != nil || !strings.HasPrefix(string(b), marker) {
		t.Fatalf("control: the host does not read the marker through %s/blk: %v", ws, err)
	}

	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, `cd `+ws+` && cat root-file && echo rewritten > root-file && echo wrote-file
head -c 20 blk && echo
printf OVERWRITTEN-BY-AGENT | dd of=blk conv=notrunc 2>/dev/null && echo wrote-device`)
	t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s", r.ExitCode, r.Stdout, r.Stderr)
	stdout := string(r.Stdout)
	// Control: the same kind of access to an ordinary root-owned file in
	// the writable root works (idmapped to the command's uid).
	if !strings.Contains(stdout, "root's file") || !strings.Contains(stdout, "wrote-file") {
		t.Fatalf("control: the command could not read and rewrite a root-owned file in its writable root: %q %q", r.Stdout, r.Stderr)
	}
	if strings.Contains(stdout, marker) {
		t.Errorf("a restricted command read the raw block device %s through the root-owned node %s/blk in its writable root", loop, ws)
	}
	dev, err := os.ReadFile(ws + "/blk")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stdout, "wrote-device") || strings.HasPrefix(string(dev), "OVERWRITTEN-BY-AGENT") {
		t.Errorf("a restricted command wrote the raw block device %s (now begins %q)", loop, dev[:20])
	}
}
