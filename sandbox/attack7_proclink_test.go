package sandbox

import (
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// TestAttack7DecisionProcessLinks (attack review 7): a decision judges the
// path the runtime's own tool will open, in another process; a path through
// a link whose target depends on the process that resolves it (/proc/self,
// /proc/thread-self, a process's cwd, root, exe, fd, map_files and ns
// entries, /dev/fd, /dev/std*) was resolved in the server: the server's
// working directory, root and descriptors were judged. It is refused as
// invalid_path, read or write, named so or reached through a symlink (in
// the workspace, or /dev/stdin's own), in every restricted mode.
//
// Controls: /proc/cpuinfo and a process's status and cmdline stay readable;
// /proc/self/environ stays sensitive_path; a full_access turn with nothing
// sensitive judges no path.
func TestAttack7DecisionProcessLinks(t *testing.T) {
	ws := tempWorkspace(t)
	mustDo(t, os.WriteFile(ws+"/a.txt", []byte("a\n"), 0o644), os.Symlink("/proc/self/cwd", ws+"/here"),
		os.Symlink("/dev/fd", ws+"/fds"), os.Symlink("/proc/"+strconv.Itoa(os.Getpid()), ws+"/me"))
	pid := strconv.Itoa(os.Getpid())
	k := domain.KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true}
	for _, mode := range []domain.Mode{domain.ModeAutoAcceptEdits, domain.ModeSupervised} {
		s := snapshotFor(t, mode, ws, k)
		for _, p := range []string{
			"/proc/self/cwd/a.txt", "/proc/self/cwd/new.txt", "/proc/self/root" + ws + "/a.txt", "/proc/thread-self/cwd/a.txt",
			"/proc/self/fd/0", "/proc/self/status", "/proc/self/../cpuinfo", "/dev/fd/0", "/dev/stdin", "/dev/stdout", "/dev/stderr",
			"/proc/" + pid + "/cwd/a.txt", "/proc/" + pid + "/root" + ws + "/a.txt", "/proc/" + pid + "/fd/0", "/proc/" + pid + "/fd",
			"/proc/" + pid + "/exe", "/proc/" + pid + "/task/" + pid + "/cwd/a.txt", "/proc/999999999/cwd/a.txt",
			"/proc/mounts", // a symlink to self/mounts
			"here/a.txt", "here/new.txt", "fds/0", "me/cwd/a.txt",
		} {
			for _, op := range []domain.Access{rd, wr} {
				if p == "/proc/999999999/cwd/a.txt" && op == rd {
					continue // missing: judged lexically all the same, below
				}
				decideFile(t, s, p, op, CodeInvalidPath, "")
			}
		}
		decideFile(t, s, "/proc/999999999/cwd/a.txt", rd, CodeInvalidPath, "")
		// Controls.
		for _, p := range []string{"/proc/cpuinfo", "/proc/" + pid + "/status", "/proc/" + pid + "/cmdline", "a.txt", "me/status"} {
			decideFile(t, s, p, rd, "", "")
		}
		decideFile(t, s, "new.txt", wr, "", ws+"/new.txt")
		for _, p := range []string{"/proc/self/environ", "/proc/thread-self/environ", "/proc/self/root/etc/shadow", "me/environ"} {
			decideFile(t, s, p, rd, CodeSensitivePath, "")
		}
	}
	full := snapshotFor(t, domain.ModeFullAccess, ws, k)
	decideFile(t, full, "/proc/self/status", rd, "", "")
}

// TestAttack7DecisionProcfsElsewhere: every symlink of a procfs leads
// somewhere else in each process, wherever the procfs is mounted (a
// monitoring container's /host/proc): one mounted in the workspace is
// refused too. Skipped where this process cannot mount one.
func TestAttack7DecisionProcfsElsewhere(t *testing.T) {
	ws := tempWorkspace(t)
	mustDo(t, os.Mkdir(ws+"/hostproc", 0o755))
	if err := unix.Mount("proc", ws+"/hostproc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		t.Skipf("mount proc: %v", err)
	}
	t.Cleanup(func() { _ = unix.Unmount(ws+"/hostproc", unix.MNT_DETACH) })
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, domain.KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true})
	decideFile(t, s, "hostproc/self/cwd/x.txt", wr, CodeInvalidPath, "")
	decideFile(t, s, "hostproc/"+strconv.Itoa(os.Getpid())+"/cwd/x.txt", wr, CodeInvalidPath, "")
	decideFile(t, s, "hostproc/cpuinfo", rd, "", ws+"/hostproc/cpuinfo")
}
