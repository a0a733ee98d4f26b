package sandbox

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// hold is a path Run creates before the helper starts, so that the helper
// can keep it read-only and the command cannot create it: an empty
// directory, or a file with the given content.
type hold struct {
	path    string
	file    bool
	content string
	// way: a missing directory on the way to a deny entry, made as an
	// ordinary one and removed again (holdway.go), not held; blocked: a
	// non-directory on that way, which refuses the command.
	way, blocked bool
}

// holds lists what Run must hold: the reserved protected names, the deny
// entries and, in every git dir discovery found, the hooks and info dirs, a
// "commondir" file naming the git dir itself (".": git reads it as "this
// dir is its own common dir", which it is) and an empty "config.worktree"
// (read when the config enables extensions.worktreeConfig). Run creates
// those that do not exist (and keeps those it holds already for another
// command). Only paths whose parent is a directory inside a writable grant
// are listed.
func (v *fsView) holds() []hold {
	var out []hold
	add := func(h hold) {
		if v.grantAt(filepath.Dir(h.path)) != domain.AccessWrite {
			return
		}
		if fi, err := os.Stat(filepath.Dir(h.path)); err != nil || !fi.IsDir() {
			return
		}
		out = append(out, h)
	}
	for _, c := range v.carves {
		// A deny entry that does not exist is held too: what is denied
		// cannot be created either. A glob is never a name to create.
		// Where its directory is missing, the way is made first.
		if ways := v.denyWays(c); len(ways) > 0 {
			if ways[0].blocked {
				out = append(out, ways[0])
				continue
			}
			out = append(append(out, ways...), hold{path: c.Path})
			continue
		}
		if c.Reserved || (c.Access == domain.AccessDeny && !strings.ContainsAny(c.Path, "*?[")) {
			add(hold{path: c.Path})
		}
	}
	for _, p := range v.pins {
		if p.Kind != pathKindGitDir {
			continue
		}
		for _, n := range gitHeldDirs {
			add(hold{path: joinPath(p.Path, n)})
		}
		add(hold{path: joinPath(p.Path, "commondir"), file: true, content: ".\n"})
		add(hold{path: joinPath(p.Path, "config.worktree"), file: true})
	}
	return out
}

// held counts, per path, the commands of this process that hold it (see
// holdNames), and keeps the descriptor its lock is held through
// (holdlock.go); the last to release it removes it if it is still empty and
// no other process holds it.
var held struct {
	mu sync.Mutex // guards n and fd
	n  map[string]int
	fd map[string]int
}

// isHeld reports whether the name p is a placeholder as holds are made
// (holdlock.go): an empty directory of mode holdDirMode, or a file of mode
// holdFileMode with a single link, named as makeHold names one
// (holdFileNames) and holding what a hold holds ("" or ".\n"), whoever holds it,
// this process or another (a server's check took another server's fresh
// placeholders in a shared root for its command's doing and set them
// aside). Such a name is harmless, and the checks after a command pass
// over it; anything else there is judged as the command's doing. The
// checks passed over a name this process held whatever it held: a command
// forged an empty 0555 .claude that another command's start then held,
// or filled the server's own placeholder (which the idmap made it the
// owner of), and what it wrote stayed (the twenty-sixth review).
func isHeld(p string) bool {
	dir, name, err := openHoldParent(p)
	if err != nil {
		return false
	}
	defer unix.Close(dir)
	fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return false
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		if st.Mode&0o7777 != holdDirMode {
			return false
		}
		names, err := f.Readdirnames(1)
		return len(names) == 0 && err == io.EOF
	case unix.S_IFREG:
		// makeHold makes no other file than these two, and never links
		// one: an empty 0444 file elsewhere, or one with another link
		// (through which the next command writes it while its check
		// takes the name for unchanged), is the command's (the
		// seventy-third review).
		if st.Mode&0o7777 != holdFileMode || st.Size > 2 || st.Nlink != 1 || !holdFileNames[name] {
			return false
		}
		b := make([]byte, 3)
		n, _ := unix.Pread(fd, b, 0)
		return n == int(st.Size) && (n == 0 || string(b[:n]) == ".\n")
	}
	return false
}

// holdFileNames are the only files makeHold makes (holds, in a git dir).
var holdFileNames = map[string]bool{"commondir": true, "config.worktree": true}

// holdNames creates, empty, every path the view lists in holds (before the
// helper starts, so that the helper can mount the name read-only and the
// command cannot create it), and returns the function that removes them
// again once no command of this process holds them. A hold that cannot be
// made is an error: the command must not run.
func holdNames(v *fsView) (release func(), err error) {
	var mine []string
	var ways []madeWay
	release = func() {
		held.mu.Lock()
		defer held.mu.Unlock()
		for i := len(mine) - 1; i >= 0; i-- {
			p := mine[i]
			if held.n[p]--; held.n[p] <= 0 {
				delete(held.n, p)
				releaseHold(p, held.fd[p])
				delete(held.fd, p)
			}
		}
		for i := len(ways) - 1; i >= 0; i-- {
			removeWay(ways[i])
		}
	}
	held.mu.Lock()
	defer held.mu.Unlock()
	if held.n == nil {
		held.n, held.fd = map[string]int{}, map[string]int{}
	}
	for _, h := range v.holds() {
		if h.blocked {
			held.mu.Unlock()
			release()
			held.mu.Lock()
			return nil, fmt.Errorf("%s, on the way to a denied name, is not a directory: the name can be neither held nor masked (move it away, it may be the agent's)", h.path)
		}
		if h.way {
			w, made, err := makeWay(h)
			if made {
				ways = append(ways, w)
			}
			if err != nil {
				held.mu.Unlock()
				release()
				held.mu.Lock()
				return nil, fmt.Errorf("make the way to a denied name, %s: %w", h.path, err)
			}
			continue
		}
		if held.n[h.path] == 0 {
			// Not held by another command of this process: make it
			// unless it exists, and hold it unless it is the user's
			// (an existing path that is not a hold).
			fd, err := acquireHold(h)
			if err != nil {
				held.mu.Unlock()
				release()
				held.mu.Lock()
				return nil, fmt.Errorf("hold the protected name %s: %w", h.path, err)
			}
			if fd < 0 {
				continue
			}
			held.fd[h.path] = fd
		}
		held.n[h.path]++
		mine = append(mine, h.path)
	}
	return release, nil
}

// makeHold creates h (never through a symlink, never over an existing
// path). The server makes it as itself (root, in the host's view), so no
// component of the path may be a symlink: its parent is opened with
// RESOLVE_NO_SYMLINKS, and the name created under that descriptor. A
// command that swaps a parent for a link to elsewhere between the view's
// check and this call gets ELOOP (the command is refused), not a directory
// or file made outside its roots.
func makeHold(h hold) error {
	dir, name, err := openHoldParent(h.path)
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	if !h.file {
		if err := unix.Mkdirat(dir, name, holdDirMode); err != nil {
			return wrapHoldErr("mkdir", h.path, err)
		}
		// The mode marks a hold (holdlock.go), whatever the umask; set
		// through a descriptor of the directory made, never through a
		// name swapped for a symlink since.
		fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return wrapHoldErr("open", h.path, err)
		}
		defer unix.Close(fd)
		return wrapHoldErr("chmod", h.path, unix.Fchmod(fd, holdDirMode))
	}
	fd, err := unix.Openat(dir, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, holdFileMode)
	if err != nil {
		return wrapHoldErr("create", h.path, err)
	}
	f := os.NewFile(uintptr(fd), h.path)
	_, err = f.WriteString(h.content)
	if err == nil {
		err = f.Chmod(holdFileMode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// openHoldParent opens the directory holding p, refusing a symlink in any
// component, and returns it with p's last component.
func openHoldParent(p string) (dir int, name string, err error) {
	parent, name := filepath.Split(filepath.Clean(p))
	dir, err = unix.Openat2(unix.AT_FDCWD, parent, &unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	if err != nil {
		return -1, "", wrapHoldErr("open the directory of", p, err)
	}
	return dir, name, nil
}

// wrapHoldErr names the path in err, keeping it an *fs.PathError (so that
// errors.Is(err, fs.ErrExist) holds for EEXIST).
func wrapHoldErr(op, p string, err error) error {
	if err == nil {
		return nil
	}
	return &fs.PathError{Op: op, Path: p, Err: err}
}

// removeHold removes a held path if it is still what makeHold made: an
// empty directory, a "commondir" file that names its own dir, an empty
// "config.worktree"; through its parent opened as makeHold opened it, so a
// parent swapped for a symlink since removes nothing elsewhere.
func removeHold(p string) {
	dir, name, err := openHoldParent(p)
	if err != nil {
		return
	}
	defer unix.Close(dir)
	removeHoldAt(dir, name)
}

// holdOpenHook, when set (tests), is called in removeHoldAt between the
// stat of a held file and its open.
var holdOpenHook func(dir int, name string)

// removeHoldAt is removeHold of name in the directory open at dir (the one
// its caller checked the hold in, not one opened again by path).
func removeHoldAt(dir int, name string) {
	var st unix.Stat_t
	if unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return
	}
	switch {
	case st.Mode&unix.S_IFMT == unix.S_IFDIR:
		unix.Unlinkat(dir, name, unix.AT_REMOVEDIR) // only when empty
		return
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return
	}
	switch name {
	case "commondir":
		if st.Size > 64 {
			return
		}
		if holdOpenHook != nil {
			holdOpenHook(dir, name)
		}
		// O_NONBLOCK: the name may have become a FIFO since the Fstatat
		// (a command's process outliving it, or one of the next), whose
		// open would wait for a writer; what was opened must be the file
		// stat saw.
		fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
		if err != nil {
			return
		}
		var ost unix.Stat_t
		if unix.Fstat(fd, &ost) != nil || ost.Mode&unix.S_IFMT != unix.S_IFREG || ost.Ino != st.Ino || ost.Dev != st.Dev {
			unix.Close(fd)
			return
		}
		b := make([]byte, 65)
		n, _ := unix.Read(fd, b)
		unix.Close(fd)
		if n < 0 || strings.TrimSpace(string(b[:n])) != "." {
			return
		}
	case "config.worktree":
		if st.Size != 0 {
			return
		}
	default:
		return // makeHold makes no other file
	}
	unix.Unlinkat(dir, name, 0)
}
