//go:build knownlimits

package sandbox

import (
	"os"
	"os/exec"
	"testing"

	"turnstile/domain"
)

// TestAttack85_IdmapSubmountFalseDeny (eighty-fifth review, low: a false
// deny). Under a root server each writable root is cloned recursively and
// idmapped recursively (buildRootView: cloneTree with AT_RECURSIVE, then
// mount_setattr MOUNT_ATTR_IDMAP with AT_RECURSIVE). When the root holds a
// mount of a file system that cannot be idmapped (a chroot being built with
// its /proc mounted, or its /dev bound, as debootstrap and arch-chroot do;
// a sshfs, NFS or other FUSE share inside the project), mount_setattr fails
// with EINVAL for the whole tree and the helper refuses: every command of
// the turn exits 126 ("mount_setattr ... (idmap or read-only): invalid
// argument"), even one that never touches the submount, and nothing says
// which mount is the cause. The README names no such limit.
//
// Control: the same workspace runs the command before the submount exists.
//
// Fix: idmap the root's own mount and attach its submounts one by one:
// each that can be idmapped is; one that cannot is attached read-only (or
// hidden under an empty tmpfs, nodev), and the snapshot or the result
// names it, rather than refusing the command.
func TestAttack85_IdmapSubmountFalseDeny(t *testing.T) {
	requireRoot(t)
	f := requireKernel(t, true)
	ws := visibleWorkspace(t)
	if err := os.MkdirAll(ws+"/chroot/proc", 0o755); err != nil {
		t.Fatal(err)
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	// Control: without the submount the command runs.
	if r := sh(t, s, "echo ok > "+ws+"/out && cat "+ws+"/out"); r.ExitCode != 0 || string(r.Stdout) != "ok\n" {
		t.Fatalf("control: exit %d %q %q", r.ExitCode, r.Stdout, r.Stderr)
	}
	if out, err := exec.Command("mount", "-t", "proc", "proc", ws+"/chroot/proc").CombinedOutput(); err != nil {
		t.Fatalf("mount proc in the chroot: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", ws+"/chroot/proc").Run() })
	r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "echo ok > " + ws + "/out && cat " + ws + "/out"}}, nil)
	if err != nil || r.ExitCode != 0 || string(r.Stdout) != "ok\n" {
		t.Errorf("with a procfs mounted in %s/chroot/proc every command of the turn is refused: exit %d, err %v, sandbox error %q",
			ws, r.ExitCode, err, r.SandboxError)
	}
}
