package sandbox

import (
	"net"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"turnstile/domain"
)

// TestAttack113_UnrestrictedFilesMovedHostSocket (hundred-and-thirteenth
// review): a command with the network disabled (allow_unix_sockets off) may
// not connect to the pathname sockets the host has bound; the view masks
// each listener where it lies now (prepareSpec -> hostSocketMasks). A
// listener found away from the name it was bound at is looked for by a walk
// of the snapshot's WRITABLE ROOTS ("an earlier command can rename a
// directory above one": within the writable roots the walk finds it). A
// filesystem left unrestricted while the network is confined (a profile's
// ":root" = "write" without a network table, which now counts as "holding
// the whole tree") has no writable roots in prepareSpec (it is not
// RestrictFilesystem), so the walk never runs, while the whole tree is
// writable to the command (as uid 0 under a root server). One command
// renames a directory above a host service's socket (/run/dbus,
// /run/containerd, /run/user/1000 …); the next connects to it at the new
// name: the host service, reached from a command whose network is disabled.
//
// Controls: the socket at its bound name is refused to the same command
// (masked); the same rename inside a writable root of a restricted
// snapshot is found by the walk and the socket stays refused.
func TestAttack113_UnrestrictedFilesMovedHostSocket(t *testing.T) {
	f := requireKernel(t, true)
	exeDir := filepathDir(testExe(t))
	data := visibleWorkspace(t)
	secret := domain.FilesystemEntry{Kind: domain.PathSensitive, Path: data, ResolvedPath: data, Access: domain.AccessDeny, Provenance: domain.ProvenanceSystem}

	// service starts a host listener at base/svc/sock and counts the
	// connections it accepts.
	service := func(base string) (sock string, accepted *atomic.Int64) {
		if err := os.Mkdir(base+"/svc", 0o755); err != nil {
			t.Fatal(err)
		}
		sock = base + "/svc/sock"
		l, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		accepted = new(atomic.Int64)
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				accepted.Add(1)
				c.Close()
			}
		}()
		return sock, accepted
	}
	connect := func(s *domain.TurnExecutionSecuritySnapshot, p string) (bool, string) {
		r := probeIn(t, s, "unix-connect", p)
		return r.ExitCode == 0 && strings.Contains(string(r.Stdout), "ok"), string(r.Stdout) + string(r.Stderr)
	}

	t.Run("control: a writable root of a restricted snapshot", func(t *testing.T) {
		ws := visibleWorkspace(t)
		sock, _ := service(ws)
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel, exeDir)
		s.Sandbox.Filesystem.Entries = append(s.Sandbox.Filesystem.Entries, secret)
		if ok, out := connect(s, sock); ok {
			t.Fatalf("premise: the host's socket at its bound name was reached: %s", out)
		}
		if r := sh(t, s, "mv "+ws+"/svc "+ws+"/svc2 && echo MOVED"); !strings.Contains(string(r.Stdout), "MOVED") {
			t.Fatalf("premise: the rename failed: %s %s", r.Stdout, r.Stderr)
		}
		if ok, out := connect(s, ws+"/svc2/sock"); ok {
			t.Fatalf("control: the walk of the writable root did not mask the moved socket: %s", out)
		}
	})

	t.Run("unrestricted files, network disabled", func(t *testing.T) {
		base := visibleWorkspace(t)
		sock, accepted := service(base)
		ws := visibleWorkspace(t)
		s := snapshotFor(t, domain.ModeFullAccess, ws, f.Kernel)
		s.Sandbox.Filesystem.Entries = append(s.Sandbox.Filesystem.Entries, secret)
		s.Network = domain.NetworkPolicy{Mode: domain.NetworkDisabled} // a profile without a network table
		if ok, out := connect(s, sock); ok || accepted.Load() != 0 {
			t.Fatalf("control: the host's socket at its bound name was reached: %s", out)
		}
		// (Adjusted with the fix: the socket's directories are pinned in
		// such a view, so the rename itself is refused, which is the
		// secure outcome; a socket moved by some other way is still
		// looked for below.)
		if r := sh(t, s, "mv "+base+"/svc "+base+"/svc2 && echo MOVED"); !strings.Contains(string(r.Stdout), "MOVED") {
			if !strings.Contains(string(r.Stderr), "busy") {
				t.Fatalf("premise: the rename failed, not as pinned: %s %s", r.Stdout, r.Stderr)
			}
			if ok, out := connect(s, sock); ok {
				t.Fatalf("the host's socket at its bound name was reached after the refused rename: %s", out)
			}
			return
		}
		if ok, out := connect(s, base+"/svc2/sock"); ok {
			t.Errorf("a command with the network disabled connected to the host's listening socket an earlier command moved (%s -> %s/svc2/sock; %d accepted): %s",
				sock, base, accepted.Load(), strings.TrimSpace(out))
		}
	})
}
