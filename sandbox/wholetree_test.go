package sandbox

import (
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// TestWritableSlashHoldsNoKernelControl: a snapshot that grants "/" itself
// for writing keeps the server's uid (TestWritableSlashStaysWritable), so
// under a root server the command is uid 0 without capabilities, which
// still passes every check made on the uid alone: the host's
// /proc/sys/kernel/core_pattern (its handler runs as the real root at the
// next crash; the hundred-and-eleventh review wrote it), a root-only block
// device (the raw disk), a cgroup directory. Each is refused; control: a
// file outside every root is written, and the host opens the device.
func TestWritableSlashHoldsNoKernelControl(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("uid 0 is a root server's")
	}
	f := requireKernel(t, true)
	dev := ""
	for _, d := range []string{"/dev/vda", "/dev/sda", "/dev/nvme0n1", "/dev/xvda", "/dev/zram0"} {
		if fd, err := unix.Open(d, unix.O_RDONLY|unix.O_CLOEXEC, 0); err == nil {
			unix.Close(fd)
			dev = d
			break
		}
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, visibleWorkspace(t), f.Kernel)
	s.Sandbox.Filesystem.Entries = append(s.Sandbox.Filesystem.Entries,
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
	outside := "/var/tmp/turnstile-slash-" + token()
	cg := "/sys/fs/cgroup/turnstile-slash-" + token()
	t.Cleanup(func() { os.Remove(outside); os.Remove(cg) })
	script := `v=$(cat /proc/sys/kernel/core_pattern) && printf '%s\n' "$v" > /proc/sys/kernel/core_pattern && echo CORE
mkdir ` + cg + ` && echo CGROUP
echo x > ` + outside + ` && echo OUTSIDE`
	if dev != "" {
		script += "\nhead -c 512 " + dev + " > /dev/null && echo DEVICE"
	}
	r := sh(t, s, script)
	out := string(r.Stdout)
	if !strings.Contains(out, "OUTSIDE") || !exists(outside) {
		t.Fatalf("control: a writable / wrote no file outside the workspace: %s %s", out, r.Stderr)
	}
	for _, w := range []string{"CORE", "CGROUP", "DEVICE"} {
		if strings.Contains(out, w+"\n") {
			t.Errorf("a command granted / for writing, as uid 0: %s succeeded (%s)", w, strings.TrimSpace(out))
		}
	}
	if dev == "" {
		t.Log("no block device the host opens: the device check was not made")
	}
}

// TestWholeTreeSocketUnderLinkedDir: a host socket bound through a linked
// directory (/var/run/x.sock, /var/run a link to /run) is listed at that
// path; pinning its directories skips the link and pins where it leads, so
// a whole-tree command still runs (opening the link as a directory to pin
// it refused every such command) and still cannot connect to the socket.
// Control: the host connects.
func TestWholeTreeSocketUnderLinkedDir(t *testing.T) {
	f := requireKernel(t, true)
	base := visibleWorkspace(t)
	if err := os.Mkdir(base+"/real", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", base+"/link"); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", base+"/link/sock")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	if c, err := net.Dial("unix", base+"/link/sock"); err != nil {
		t.Fatalf("control: the host does not reach its socket: %v", err)
	} else {
		c.Close()
	}
	data := visibleWorkspace(t)
	s := snapshotFor(t, domain.ModeFullAccess, visibleWorkspace(t), f.Kernel)
	s.Sandbox.Filesystem.Entries = append(s.Sandbox.Filesystem.Entries,
		domain.FilesystemEntry{Kind: domain.PathSensitive, Path: data, ResolvedPath: data, Access: domain.AccessDeny, Provenance: domain.ProvenanceSystem})
	s.Network = domain.NetworkPolicy{Mode: domain.NetworkDisabled}
	if r := sh(t, s, "echo ran"); r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "ran") {
		t.Fatalf("a whole-tree command with a host socket under a linked directory did not run: %d %s %s", r.ExitCode, r.Stdout, r.Stderr)
	}
	if r := probeIn(t, s, "unix-connect", base+"/link/sock"); r.ExitCode == 0 && strings.Contains(string(r.Stdout), "ok") {
		t.Errorf("a whole-tree command with the network disabled connected to the host's socket under a linked directory: %s", r.Stdout)
	}
}
