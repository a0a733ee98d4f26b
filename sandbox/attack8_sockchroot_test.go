package sandbox

import (
	"os"
	"testing"
)

// listenInChroot binds a listening unix socket the way a chrooted service
// in the host's own mount namespace does: in a process whose thread has a
// file system context of its own (CLONE_FS) and is chrooted into jail, the
// socket is bound at "/"+name. The kernel's list names "/"+name, which here holds nothing; the
// file lies at jail/name.
func listenInChroot(t *testing.T, jail, name string) {
	t.Helper()
	listenInProcess(t, nil, "chroot", jail, "/"+name)
}

// TestAttack8SocketBoundInChrootReachable (eighth review of 326defd):
// foreignSocketPaths looks for a listener whose listed name does not lead
// to it here only in the mount namespaces of other processes
// (namespaceHolders skips this one's). A service chrooted in the host's own
// mount namespace (a jail of bind9, postfix, an sshd privsep dir…) binds
// "/svc.sock"; the list names /svc.sock, which here holds nothing, and the
// file at JAIL/svc.sock is not masked: a supervised command connects to the
// host's service there. Control: the same service bound without the chroot,
// at the same place, is masked.
// (Fixed: a chrooted listener is found under its root: namespaceHolders
// tells views apart by mount namespace and root.)
func TestAttack8SocketBoundInChrootReachable(t *testing.T) {
	f := requireKernel(t, true)
	if os.Geteuid() != 0 {
		t.Skip("needs root to chroot the test's service")
	}
	base := visibleWorkspace(t)
	jail, direct := base+"/jail", base+"/direct"
	for _, d := range []string{jail, direct} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	listenInChroot(t, jail, "attack8-svc.sock")
	expectForeignSocketMasked(t, f.Kernel, direct, jail+"/attack8-svc.sock", "a chrooted host service")
}
