//go:build knownlimits

package sandbox

import (
	"net"
	"os"
	"os/exec"
	"testing"

	"turnstile/domain"
)

// TestAttack85_SocketBindAlias (eighty-fifth review, low-medium: a host
// service's unix socket is reached from a supervised command). Host sockets
// are masked in the command's view at the name the kernel's socket list
// gives (hostSocketMasks: "where it was bound: masked there") and, for a
// listener whose name leads elsewhere, at every mount here that shows its
// file (foreignSocketPaths, samePlace). A listener found at its bound name
// is masked at that name only: when the host's own mount namespace shows
// the same directory a second time (a bind mount: /srv/run bound at
// /mnt/host-run, a volume bound into a home, the layout a container or an
// admin makes), the socket file is reachable under the other path too, and
// nothing masks it there. Landlock ABI 7 does not govern connect(2) and the
// read-only view does not stop it either: the command connects through
// the alias and the host service acts on its requests (a D-Bus system bus,
// a container engine, an agent of the person's keys).
//
// Control: the host reaches the service through both paths; the command is
// refused at the bound name.
//
// Fix: for every listener found at its name, mask it also wherever this
// namespace's mount table shows the same place of the same file system
// (run samePlace against the own mountinfo for every live listener, not
// only for those bound in another mount namespace), checking each path with
// at(p, id) as now.
func TestAttack85_SocketBindAlias(t *testing.T) {
	f := requireKernel(t, true)
	requireRoot(t)
	base := visibleWorkspace(t) // under /var/tmp: /tmp is hidden from the command
	direct, alias := base+"/run", base+"/host-run"
	for _, d := range []string{direct, alias} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	hostListener(t, direct+"/svc.sock")
	if err := os.Chmod(direct+"/svc.sock", 0o777); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "--bind", direct, alias).CombinedOutput(); err != nil {
		t.Fatalf("bind %s at %s: %v %s", direct, alias, err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", alias).Run() })
	// Control: the host reaches the service by both names.
	for _, p := range []string{direct + "/svc.sock", alias + "/svc.sock"} {
		c, err := net.Dial("unix", p)
		if err != nil {
			t.Fatalf("control: the service from the host at %s: %v", p, err)
		}
		c.Close()
	}
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeSupervised, ws, f.Kernel, filepathDir(testExe(t)))
	forgetWalks()
	// Control: at the name it was bound at, the socket is masked.
	if r := probeIn(t, s, "unix-connect", direct+"/svc.sock"); r.ExitCode != 1 {
		t.Fatalf("control: the host's socket at its bound name was reached: exit %d %s %s", r.ExitCode, r.Stdout, r.Stderr)
	}
	forgetWalks()
	if r := probeIn(t, s, "unix-connect", alias+"/svc.sock"); r.ExitCode != 1 {
		t.Errorf("the host's service was reached from a supervised command through the bind mount %s: exit %d %s %s",
			alias, r.ExitCode, r.Stdout, r.Stderr)
	}
}
