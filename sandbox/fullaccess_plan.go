package sandbox

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// A full_access command has no filesystem or network sandbox, but it must
// not read the gateway's own secrets (its data directory and credential
// files: the snapshot's sensitive_path entries). The helper runs it in its
// own user, mount and PID namespaces where each secret is masked wherever
// its filesystem is mounted, with a /dev of harmless nodes only, the
// kernel's control filesystems read-only, and CAP_SYS_ADMIN gone from every
// capability set, so that no mount can be undone (fullaccess.go).

// gatewaySecrets returns the snapshot's entries naming the gateway's own
// secrets: kind sensitive_path, provenance system, access deny. A
// full_access snapshot carries only those (AddSensitivePaths); the
// restricted modes' built-in sensitive paths never reach this path.
func gatewaySecrets(s *domain.TurnExecutionSecuritySnapshot) []domain.FilesystemEntry {
	var out []domain.FilesystemEntry
	for _, e := range s.Sandbox.Filesystem.Entries {
		if gatewaySecret(e) {
			out = append(out, e)
		}
	}
	return out
}

// gatewaySecret reports an entry naming one of the gateway's own secrets.
func gatewaySecret(e domain.FilesystemEntry) bool {
	return e.Kind == domain.PathSensitive && e.Provenance == domain.ProvenanceSystem && e.Access == domain.AccessDeny
}

// prepareFullAccess plans an unrestricted snapshot's command. When the
// snapshot names gateway secrets (a server's snapshots always do), the
// command runs in its namespaces whenever the probe found them usable; when
// it did not, the command is refused unless the operator accepted running it
// unisolated (KernelFeatures.FullAccessUnisolated, which the snapshot then
// names as a degradation). With no secret to hide (`turnstile sandbox`) it
// runs directly, as before.
func prepareFullAccess(s *domain.TurnExecutionSecuritySnapshot, p *Plan) error {
	secrets := gatewaySecrets(s)
	if len(secrets) == 0 {
		return nil // nothing of the gateway's to hide (turnstile sandbox): run directly
	}
	k := s.Backend.Kernel
	if k == nil || !k.UserNamespaces {
		if k != nil && k.FullAccessUnisolated {
			return nil // the operator's explicit choice, named in the snapshot: run directly
		}
		why := "the snapshot carries no kernel probe"
		if k != nil {
			why = "the kernel probe found no usable user namespaces"
		}
		return refuse(CodeSandboxUnavailable, "", "full_access commands run in their own user, mount and PID namespaces so that the gateway's data directory and credential files stay hidden, and %s: nothing was run (serve --full-access-unisolated accepts running them unisolated)", why)
	}
	p.Sandboxed = true
	p.Sandbox = SandboxSpec{Entries: secrets, FullAccess: true, AllowUnixSockets: true, UserNamespaces: true, Seccomp: k.Seccomp}
	return nil
}

// fullAccessAttr starts the helper of a full_access command in new user,
// mount and PID namespaces. A root server maps the whole id range to itself
// (the command keeps root's file access everywhere else); another server
// maps its own uid and gid, and gives the helper CAP_SYS_ADMIN (to mount)
// and CAP_SETPCAP (to empty the bounding set) as ambient capabilities.
func fullAccessAttr() *syscall.SysProcAttr {
	const flags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID
	if os.Geteuid() == 0 {
		all := []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1<<32 - 1}}
		return &syscall.SysProcAttr{Cloneflags: flags, UidMappings: all, GidMappings: all, GidMappingsEnableSetgroups: true}
	}
	uid, gid := os.Geteuid(), os.Getegid()
	return &syscall.SysProcAttr{
		Cloneflags:  flags,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		AmbientCaps: []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP},
	}
}

// heldSecret is a gateway secret held open (O_PATH) since the first
// full_access spawn: wherever a command of a turn renames it (or a parent
// directory) to, the descriptor follows it, and the helper masks it there.
type heldSecret struct {
	f        *os.File
	dev, ino uint64
}

var heldSecrets struct {
	mu sync.Mutex // guards m
	m  map[string]*heldSecret
}

// heldSecretFiles returns, for the secrets that exist, a descriptor of each
// (opened the first time and kept for the life of the process; reopened
// when the file or directory at the path was replaced or removed). The
// helper receives them in this order from helperIdmapFD on.
func heldSecretFiles(entries []domain.FilesystemEntry) ([]*os.File, error) {
	heldSecrets.mu.Lock()
	defer heldSecrets.mu.Unlock()
	if heldSecrets.m == nil {
		heldSecrets.m = map[string]*heldSecret{}
	}
	var out []*os.File
	for _, e := range entries {
		p := e.ResolvedPath
		if p == "" {
			p = e.Path
		}
		h := heldSecrets.m[p]
		if h != nil && h.deleted() {
			// Not closed: a spawn running concurrently may be passing it
			// (it names nothing any more); the path is held anew.
			delete(heldSecrets.m, p)
			h = nil
		}
		if h == nil {
			fd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
			if errors.Is(err, unix.ENOENT) {
				continue // nothing to hide (yet): the path is masked if it appears
			}
			if err != nil {
				return nil, fmt.Errorf("hold the gateway secret %s: %w", p, err)
			}
			var st unix.Stat_t
			if err := unix.Fstat(fd, &st); err != nil {
				unix.Close(fd)
				return nil, fmt.Errorf("hold the gateway secret %s: %w", p, err)
			}
			h = &heldSecret{f: os.NewFile(uintptr(fd), p), dev: st.Dev, ino: st.Ino}
			heldSecrets.m[p] = h
		}
		if !slices.Contains(out, h.f) {
			out = append(out, h.f)
		}
	}
	return out, nil
}

// deleted reports whether the held file has no name left.
func (h *heldSecret) deleted() bool {
	var st unix.Stat_t
	return unix.Fstat(int(h.f.Fd()), &st) != nil || st.Nlink == 0
}
