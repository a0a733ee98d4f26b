package sandbox

import (
	"os"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack113_LinkedSlashRootDevices (hundred-and-thirteenth review,
// low): a turn rooted at "/" keeps the server's uid and gets the whole-tree
// view (a /dev of harmless nodes, nodev everywhere). A turn rooted at a
// symlink to "/" (the agent makes one in a workspace of an earlier turn;
// the server records led_to "/") is the same grant in the helper (its
// canonical root is "/", the tree stays writable: holdsWholeTree), but Run
// decides the uid on the entry's resolved path, which is the link's, so the
// command drops to the sandbox uid, and hardenWholeTree then does only the
// secrets and the program: the host's /dev stays, without nodev, inside a
// writable root that Landlock opens entirely. Every device "other" may open
// opens (/dev/net/tun, /dev/fuse, /dev/ptmx of the host's devpts, a 0666
// /dev/kvm where a host has one), which the README's files row says no
// writable root allows ("no device file in a writable root opens") and
// which neither an ordinary workspace's command nor a "/"-rooted one's can
// open; the snapshot names no degradation.
//
// Controls: an ordinary workspace, and a turn rooted at "/" itself, open
// neither device.
func TestAttack113_LinkedSlashRootDevices(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the sandbox uid is a root server's")
	}
	f := requireKernel(t, true)
	var devs []string
	for _, d := range []string{"/dev/net/tun", "/dev/fuse"} {
		if st, err := os.Stat(d); err == nil && st.Mode()&os.ModeCharDevice != 0 && st.Mode().Perm()&0o006 == 0o006 {
			devs = append(devs, d)
		}
	}
	if len(devs) == 0 {
		t.Skip("no device every user may open (/dev/net/tun, /dev/fuse) on this host")
	}
	data := visibleWorkspace(t)
	secret := domain.FilesystemEntry{Kind: domain.PathSensitive, Path: data, ResolvedPath: data, Access: domain.AccessDeny, Provenance: domain.ProvenanceSystem}
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
	script := "id -u"
	for i, d := range devs {
		// The device itself (test -c), opened without creating anything.
		script += "\ntest -c " + d + " && ( exec " + string(rune('3'+i)) + "<" + d + " ) && echo OPENED " + d
	}
	check := func(name string, s *domain.TurnExecutionSecuritySnapshot) string {
		s.Sandbox.Filesystem.Entries = append(s.Sandbox.Filesystem.Entries, secret)
		r := sh(t, s, script)
		t.Logf("%s: stdout %q stderr %q", name, r.Stdout, r.Stderr)
		return string(r.Stdout)
	}
	if out := check("workspace", snapshotFor(t, domain.ModeAutoAcceptEdits, visibleWorkspace(t), f.Kernel)); strings.Contains(out, "OPENED") {
		t.Fatalf("control: an ordinary workspace's command opened a device: %s", out)
	}
	if out := check("slash", snapshotFor(t, domain.ModeAutoAcceptEdits, "/", f.Kernel)); strings.Contains(out, "OPENED") || !strings.HasPrefix(out, "0\n") {
		t.Fatalf("control: a command of a turn rooted at / opened a device (or is not uid 0): %s", out)
	}
	link := visibleWorkspace(t) + "/root"
	if err := os.Symlink("/", link); err != nil {
		t.Fatal(err)
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, link, f.Kernel)
	domain.BindRootLinks(s, map[string]string{link: "/"}) // as the server records it
	out := check("linked slash", s)
	if strings.HasPrefix(out, "0\n") {
		t.Fatalf("premise: the linked root's command is uid 0: %s", out)
	}
	for _, d := range devs {
		if strings.Contains(out, "OPENED "+d) {
			t.Errorf("a command of a turn rooted at a link to / opened the host's %s (its writable root holds the host's /dev, without nodev; degradations %v)", d, s.Enforcement.Degradations)
		}
	}
}
