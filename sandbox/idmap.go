package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// helperIdmapFD is the first descriptor of the idmap user namespaces Run
// passes the helper (after the spec and status pipes), one per entry of
// SandboxSpec.Idmaps, in order.
const helperIdmapFD = helperStatusFD + 1

// IdmapOwner is the owner of writable roots whose idmapped mounts send it to
// SandboxUID (see idmapUserns).
type IdmapOwner struct {
	UID int `json:"uid"`
	GID int `json:"gid"`
}

// idmaps caches, in a root server, one idmap user namespace per owner:
// making one costs about 1 ms (a child stopped before its exec), so it is
// made once and passed to every helper that needs it.
var idmaps struct {
	mu sync.Mutex // guards m
	m  map[IdmapOwner]*os.File
}

// writableOwners lists the distinct owners of the existing writable roots
// (directories and regular files) of sp, the temp dir included.
func writableOwners(sp *SandboxSpec) []IdmapOwner {
	paths := []string{}
	for _, e := range sp.Entries {
		if e.Access == domain.AccessWrite && e.Kind != domain.PathProtected {
			p := e.ResolvedPath
			if p == "" {
				p = e.Path
			}
			paths = append(paths, p)
		}
	}
	if sp.TmpDir != "" {
		paths = append(paths, sp.TmpDir)
	}
	seen := map[IdmapOwner]bool{}
	var out []IdmapOwner
	for _, p := range paths {
		var st unix.Stat_t
		if unix.Stat(p, &st) != nil || sharedDir(p) {
			continue
		}
		if m := st.Mode & unix.S_IFMT; m != unix.S_IFDIR && m != unix.S_IFREG {
			continue
		}
		o := IdmapOwner{UID: int(st.Uid), GID: int(st.Gid)}
		if !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	return out
}

// idmapFiles returns the cached idmap user namespaces for owners, making
// the missing ones. The files stay open for the life of the process.
func idmapFiles(owners []IdmapOwner) ([]*os.File, error) {
	idmaps.mu.Lock()
	defer idmaps.mu.Unlock()
	if idmaps.m == nil {
		idmaps.m = map[IdmapOwner]*os.File{}
	}
	out := make([]*os.File, 0, len(owners))
	for _, o := range owners {
		f, ok := idmaps.m[o]
		if !ok {
			fd, err := lockedIdmapUserns(o)
			if err != nil {
				return nil, err
			}
			f = os.NewFile(uintptr(fd), fmt.Sprintf("idmap-%d-%d", o.UID, o.GID))
			idmaps.m[o] = f
		}
		out = append(out, f)
	}
	return out, nil
}

// lockedIdmapUserns runs idmapUserns on a locked OS thread (ptrace ties the
// stopped child to the thread that started it). The child executes the lean
// helper when there is one (it never runs: exec only loads it), since
// loading the full binary, dynamically linked and five times larger, takes
// about twice as long (0.8-1.2 ms against 1.5-2.4 ms here, measured).
func lockedIdmapUserns(o IdmapOwner) (int, error) {
	exe := selfExe
	if h := probeHelper(); h.lean {
		exe = h.path
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	fd, err := idmapUserns(exe, o.UID, o.GID, SandboxUID, SandboxUID)
	if err != nil && exe != selfExe {
		// The lean helper was refused (and its descriptor closed) meanwhile.
		fd, err = idmapUserns(selfExe, o.UID, o.GID, SandboxUID, SandboxUID)
	}
	return fd, err
}

// prewarmIdmaps makes the idmap user namespaces a command of a root
// process over root will most likely need (one for root's owner, one for
// this process's user, who owns the isolated temp dir), so that a caller
// that runs one command (`turnstile sandbox`) can make them while it plans
// it. Run uses the cached ones (idmapFiles) and makes any other it needs.
func prewarmIdmaps(root string) {
	owners := []IdmapOwner{{UID: os.Geteuid(), GID: os.Getegid()}}
	var st unix.Stat_t
	if unix.Stat(root, &st) == nil {
		if o := (IdmapOwner{UID: int(st.Uid), GID: int(st.Gid)}); o != owners[0] {
			owners = append(owners, o)
		}
	}
	idmapFiles(owners) // an error recurs in Run, which reports it
}

// passedIdmap returns the descriptor Run passed for owner, or -1.
func passedIdmap(sp *SandboxSpec, o IdmapOwner) int {
	for i, p := range sp.Idmaps {
		if p == o {
			if receivedIdmaps != nil {
				return receivedIdmaps[i]
			}
			return helperIdmapFD + i
		}
	}
	return -1
}
