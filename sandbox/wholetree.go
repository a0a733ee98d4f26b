package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// A confined command may still hold the whole tree: a filesystem left
// unrestricted while the network is confined (a profile's ":root" =
// "write" without a network table), or a writable "/" (a turn rooted at
// "/"), where it keeps the server's uid (as root, uid 0: there is nothing
// to idmap). Its view then gets what a full_access command's gets
// (fullaccess.go), for the same reasons: the gateway's secrets masked
// wherever their filesystem is mounted and the helper's own program
// pinned, the kernel's control filesystems and procfs's kernel-wide files
// read-only and every other procfs covered by the namespace's own
// (core_pattern's handler runs as the host's root), nodev everywhere and
// a /dev of harmless nodes (root's block devices are the raw disk); the
// directories of the host's sockets pinned where they are masked (the
// walk that finds a moved one is the writable roots'); and as root, whom
// the kernel's RLIMIT_NPROC does not bound, the PID namespace's pid_max.
// The hundred-and-eleventh review read the admin token through the first
// shape and wrote /proc/sys/kernel/core_pattern through the second; the
// hundred-and-thirteenth wrote it through a chroot's procfs, reached a
// socket an earlier command moved, forked past the bound, and opened
// /dev/net/tun through a root that only led to "/".

// holdsWholeTree reports whether the command's view leaves it the whole
// tree (see above).
func holdsWholeTree(v *fsView, sp *SandboxSpec) bool {
	return !sp.RestrictFilesystem || v.grantAt("/") == domain.AccessWrite
}

// wholeTreeSecrets returns the spec's entries naming the gateway's own
// secrets (gatewaySecrets' rule).
func wholeTreeSecrets(sp *SandboxSpec) []domain.FilesystemEntry {
	var out []domain.FilesystemEntry
	for _, e := range sp.Entries {
		if gatewaySecret(e) {
			out = append(out, e)
		}
	}
	return out
}

// hardenWholeTree applies the above in the helper, after the root view.
func hardenWholeTree(sp *SandboxSpec) error {
	mounts, err := readMountinfo("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	pinned := map[string]bool{}
	if secrets := wholeTreeSecrets(sp); len(secrets) > 0 {
		if err := maskSecrets(&SandboxSpec{Entries: secrets}, pinned); err != nil {
			return err
		}
	}
	if err := protectOwnProgram(pinned); err != nil {
		return err
	}
	if !sp.AllowUnixSockets {
		// The host's sockets are masked where they are bound; the walk
		// that finds one moved since is the writable roots', and here the
		// whole tree is writable: their directories are pinned, so no
		// command of such a view moves one (the hundred-and-thirteenth
		// review moved one and reached it with the next command).
		for _, s := range sp.HostSockets {
			if err := pinSocketDirs(s, pinned); err != nil {
				return err
			}
		}
	}
	// Cloned after the masks and pins, which the copy of /dev/shm then
	// carries (buildFullAccessView).
	nodes, err := cloneDevNodes()
	if err != nil {
		return err
	}
	defer closeDevNodes(nodes)
	if sp.MaxTasks > 0 && unix.Geteuid() == 0 && sp.UID == 0 {
		// The kernel applies no RLIMIT_NPROC to root: the PID namespace's
		// own pid_max (Linux 6.14 on) bounds its tasks instead; where the
		// kernel has none, the bound is not held (the snapshot says so).
		_ = os.WriteFile("/proc/sys/kernel/pid_max", []byte(strconv.Itoa(sp.MaxTasks+1)), 0)
	}
	if err := kernelFSReadOnly(mounts); err != nil {
		return err
	}
	if err := ownProcOnly(mounts); err != nil {
		return err
	}
	return mountDev(nodes)
}

// pinSocketDirs pins the directories above a host socket, at the path it
// was bound at and where that leads (a socket bound under /var/run, a link
// to /run: the link is no directory to pin, and what it leads to is). A
// directory gone, or a link, is skipped.
func pinSocketDirs(s string, pinned map[string]bool) error {
	paths := []string{s}
	if c, err := filepath.EvalSymlinks(s); err == nil && c != s {
		paths = append(paths, c)
	}
	for _, p := range paths {
		for a := range ancestors(p) {
			if pinned[a] {
				continue
			}
			if err := bindSelf(a, false, true); err != nil {
				if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
					continue
				}
				return fmt.Errorf("pin %s above a host socket: %w", a, err)
			}
			pinned[a] = true
		}
	}
	return nil
}
