package sandbox

import (
	"errors"
	"fmt"

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
// pinned; as root, the kernel's control filesystems and procfs's
// kernel-wide files read-only (core_pattern's handler runs as the host's
// root) and a /dev of harmless nodes (root's block devices are the raw
// disk). The hundred-and-eleventh review read the admin token through the
// first and wrote /proc/sys/kernel/core_pattern through the second.

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
		if e.Kind == domain.PathSensitive && e.Provenance == domain.ProvenanceSystem && e.Access == domain.AccessDeny {
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
	root := unix.Geteuid() == 0 && sp.UID == 0
	var nodes []devNode
	if root {
		if nodes, err = cloneDevNodes(); err != nil {
			return err
		}
		defer func() {
			for _, n := range nodes {
				unix.Close(n.fd)
			}
		}()
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
	if !root {
		return nil
	}
	var readOnly []string
	for _, m := range mounts {
		if !readOnlyKernelFS[m.fstype] || domain.PathWithin(m.point, "/proc") || withinAny(m.point, readOnly) {
			continue
		}
		attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
		if err := unix.MountSetattr(unix.AT_FDCWD, m.point, unix.AT_RECURSIVE|unix.AT_SYMLINK_NOFOLLOW, &attr); err != nil && !errors.Is(err, unix.ENOENT) {
			return fmt.Errorf("make %s (%s) read-only: %w", m.point, m.fstype, err)
		}
		readOnly = append(readOnly, m.point)
	}
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_NODEV}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, &attr); err != nil {
		return fmt.Errorf("set nodev on every mount: %w", err)
	}
	for _, p := range readOnlyProc {
		if err := bindSelf(p, true, false); err != nil && !errors.Is(err, unix.ENOENT) {
			return err
		}
	}
	return mountDev(nodes)
}
