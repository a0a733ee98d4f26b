package sandbox

import (
	"errors"

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
	if err := kernelFSReadOnly(mounts); err != nil {
		return err
	}
	for _, p := range readOnlyProc {
		if err := bindSelf(p, true, false); err != nil && !errors.Is(err, unix.ENOENT) {
			return err
		}
	}
	return mountDev(nodes)
}
