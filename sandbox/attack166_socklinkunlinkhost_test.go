package sandbox

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack166_SocketLinkCheckUnlinksHostName (review 166, low): the
// check after a command (socklinks.go removeHostSocketLinks) keeps the
// listener's bound name by comparing path STRINGS (w.path ==
// live[w.id]): /proc/net/unix lists the name as the host gave it to
// bind(2), the walk the name as it lies under the root. A service the
// person started through a symlinked path to the project (a home or a
// project reached through a symlink, /home/alice -> /data/alice; here
// link -> ws) is listed as link/run/svc.sock, walked as ws/run/svc.sock:
// once a command links the socket (the README's known-limit window), the
// check removes both names, the person's service's own socket file
// included; its clients can no longer connect (the service must be
// restarted). Fix: compare by (dev, inode) of the bound name's directory
// entry, i.e. keep the name the live path resolves to (lstat of its
// resolved parent), not the string; or resolve the bound name's parent
// before comparing.
// Control: the link the command made is removed.
func TestAttack166_SocketLinkCheckUnlinksHostName(t *testing.T) {
	requireRoot(t)
	f := requireKernel(t, true)
	exeDir := filepathDir(testExe(t))
	ws := visibleWorkspace(t)
	if err := os.Mkdir(ws+"/run", 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(filepath.Dir(ws), "r166link-"+filepath.Base(ws))
	if err := os.Symlink(ws, link); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(link)
	sock := ws + "/run/svc.sock"
	wide := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel, exeDir)
	// The person's service, started through the symlinked path.
	a := whileHostBinds(t, wide, ws, sock, "ln "+sock+" "+ws+"/x.sock && echo LINKED", func() {
		l := listenUnix(t, link+"/run/svc.sock")
		l.(*net.UnixListener).SetUnlinkOnClose(false)
	})
	if a == nil || !strings.Contains(string(a.Stdout), "LINKED") {
		t.Fatalf("premise: the link failed: %+v", a)
	}
	if _, err := os.Lstat(ws + "/x.sock"); err == nil {
		t.Fatalf("control: the link x.sock the command made was not removed after it (%+v)", a.Quarantined)
	}
	if _, err := os.Lstat(sock); err != nil {
		t.Errorf("the host service's own socket file %s (bound as %s) was removed by the check after the command: %v (%+v)", sock, link+"/run/svc.sock", err, a.Quarantined)
	}
	if c, err := net.Dial("unix", link+"/run/svc.sock"); err != nil {
		t.Errorf("the person's service is unreachable at the name it bound: %v", err)
	} else {
		c.Close()
	}
}
