package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// TestAttack118_WholeTreeDevShmDeviceNode (hundred-and-eighteenth review):
// a command that holds the whole tree (a writable "/": kernel uid 0) gets,
// by wholetree.go's account, "nodev everywhere and a /dev of harmless nodes
// (root's block devices are the raw disk)". hardenWholeTree takes the
// host's /dev/shm into that /dev (cloneDevNodes, a recursive clone) before
// kernelFSReadOnly sets nodev on every mount, and mountDev moves the clone
// in afterwards: the view's /dev/shm keeps the host's mount flags. Where
// the host's /dev/shm is not mounted nodev (this host; attack86's
// precondition), a root-owned 0600 block device node in it (an image's /dev
// a build unpacked there) opens for the command, which is uid 0: it reads
// and writes the raw disk, under the masks that hide the gateway's
// secrets. The same node anywhere else in the tree does not open (nodev):
// that is the control. full_access's view (same cloneDevNodes/mountDev,
// "no block device is reachable") is checked too.
func TestAttack118_WholeTreeDevShmDeviceNode(t *testing.T) {
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
	const marker = "RAW-DEVICE-MARKER-118"
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
	shm, err := os.MkdirTemp("/dev/shm", "turnstile-a118-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(shm) })
	if err := os.Chmod(shm, 0o755); err != nil {
		t.Fatal(err)
	}
	elsewhere := visibleWorkspace(t) // on the root filesystem: nodev in the view
	for _, n := range []string{shm + "/blk", elsewhere + "/blk"} {
		if err := unix.Mknod(n, unix.S_IFBLK|0o600, int(st.Rdev)); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(n); err != nil || !strings.HasPrefix(string(b), marker) {
			t.Fatalf("setup: the host does not read the marker through %s: %v", n, err)
		}
	}
	data := visibleWorkspace(t)
	secret := domain.FilesystemEntry{Kind: domain.PathSensitive, Path: data, ResolvedPath: data, Access: domain.AccessDeny, Provenance: domain.ProvenanceSystem}
	probe := func(t *testing.T, s *domain.TurnExecutionSecuritySnapshot, node string) (string, *Result) {
		t.Helper()
		r := sh(t, s, `id -u >&2; head -c 21 `+node+` && echo`)
		t.Logf("%s: exit %d stdout %q stderr %q", node, r.ExitCode, r.Stdout, r.Stderr)
		return string(r.Stdout), r
	}
	ws := visibleWorkspace(t)
	slash := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	slash.Sandbox.Filesystem.Entries = append(slash.Sandbox.Filesystem.Entries, secret,
		domain.FilesystemEntry{Kind: domain.PathExplicit, Path: "/", ResolvedPath: "/", Access: domain.AccessWrite, Provenance: domain.ProvenanceTaskCap})

	// Control: in the same whole-tree view, the node on the root
	// filesystem does not open (nodev), and the command did run as uid 0.
	got, r := probe(t, slash, elsewhere+"/blk")
	if strings.TrimSpace(string(r.Stderr)) == "" || !strings.HasPrefix(string(r.Stderr), "0\n") {
		t.Fatalf("control: the whole-tree command did not run as uid 0: %+v %q", r, r.Stderr)
	}
	if strings.Contains(got, marker) {
		t.Fatalf("control: the whole-tree command read the raw device through %s/blk on a nodev mount", elsewhere)
	}
	if got, _ := probe(t, slash, shm+"/blk"); strings.Contains(got, marker) {
		t.Errorf("a command granted / for writing (uid 0) read the raw block device %s through the root-owned node %s/blk in the view's /dev/shm", loop, shm)
	}

	t.Run("full_access", func(t *testing.T) {
		useStaticHelper(t)
		open := snapshotFor(t, domain.ModeFullAccess, ws, f.Kernel)
		open.Sandbox.Filesystem.Entries = append(open.Sandbox.Filesystem.Entries, secret)
		got, _ := probe(t, open, elsewhere+"/blk")
		if strings.Contains(got, marker) {
			t.Fatalf("control: the full_access command read the raw device through %s/blk on a nodev mount", elsewhere)
		}
		if got, _ := probe(t, open, shm+"/blk"); strings.Contains(got, marker) {
			t.Errorf("a full_access command read the raw block device %s through the root-owned node %s/blk in the view's /dev/shm", loop, shm)
		}
	})
}
