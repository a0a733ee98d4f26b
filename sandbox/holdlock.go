package sandbox

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// Held names are shared between processes: two `turnstile sandbox` runs (or
// a server and one) over the same root hold the same names, and each
// command's view mounts the name read-only only while it exists. If the
// first process to finish removed a name that another's command still
// relied on, the host's rmdir would detach that command's read-only mount
// and the command could create the name after all (a git dir, or the
// helper program the next run execs before anything is enforced). So every
// process that holds a name keeps a shared flock on it, and the last one
// out removes it: removal takes the lock exclusively (without waiting) or
// leaves the name to whoever still holds it. A name some process made is
// marked by its mode (holdDirMode, holdFileMode), so that a process that
// finds one left by another holds it too, and never takes a user's own
// directory or file for one.
const (
	holdDirMode  = 0o555
	holdFileMode = 0o444
	// holdTries bounds the attempts to hold a name that keeps changing
	// (another process removing it as this one finds it).
	holdTries = 20
	// holdLockWait bounds the wait for a shared lock on a name: another
	// process holds it exclusively only while it removes it.
	holdLockWait = 2 * time.Second
)

// acquireHold makes h unless it exists, and holds it: it returns a
// descriptor with a shared lock on it, or -1 when the name is the user's
// (it existed and is not a hold), which is not held.
func acquireHold(h hold) (int, error) {
	for try := 0; try < holdTries; try++ {
		made := false
		if err := makeHold(h); err == nil {
			made = true
		} else if !errors.Is(err, unix.EEXIST) {
			return -1, err
		}
		fd, settled, err := lockHold(h.path, made)
		if err != nil || settled {
			return fd, err
		}
	}
	return -1, fmt.Errorf("hold %s: it kept being removed and made again", h.path)
}

// lockHold takes a shared lock on the hold at p. settled is false when p
// changed meanwhile (removed, or replaced): the caller tries again.
func lockHold(p string, made bool) (fd int, settled bool, err error) {
	dir, name, err := openHoldParent(p)
	if err != nil {
		return -1, false, err
	}
	defer unix.Close(dir)
	var st unix.Stat_t
	if err := unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if err == unix.ENOENT {
			return -1, false, nil
		}
		return -1, false, wrapHoldErr("stat", p, err)
	}
	isDir := st.Mode&unix.S_IFMT == unix.S_IFDIR
	marked := (isDir && st.Mode&0o7777 == holdDirMode) || (st.Mode&unix.S_IFMT == unix.S_IFREG && st.Mode&0o7777 == holdFileMode)
	if !marked {
		if made {
			return -1, false, nil // replaced since this process made it
		}
		return -1, true, nil // the user's
	}
	flags := unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC
	if isDir {
		flags |= unix.O_DIRECTORY
	}
	fd, err = unix.Openat(dir, name, flags, 0)
	if err != nil {
		if err == unix.ENOENT || err == unix.ELOOP || err == unix.ENOTDIR {
			return -1, false, nil
		}
		return -1, false, wrapHoldErr("open", p, err)
	}
	deadline := time.Now().Add(holdLockWait)
	for {
		err = unix.Flock(fd, unix.LOCK_SH|unix.LOCK_NB)
		if err != unix.EWOULDBLOCK || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond) // polled: a lock has no wait with a bound
	}
	if err != nil {
		unix.Close(fd)
		return -1, false, wrapHoldErr("lock", p, err)
	}
	// Still the name's file (not removed by the process that had it
	// exclusively, nor replaced)?
	if !sameFileAt(fd, dir, name) {
		unix.Close(fd)
		return -1, false, nil
	}
	return fd, true, nil
}

// releaseHold drops this process's hold on p (fd, from acquireHold): when no
// other process holds it, it is removed (removeHold: only if still empty).
func releaseHold(p string, fd int) {
	defer unix.Close(fd)
	if unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) != nil {
		return // held by another process: the last one removes it
	}
	dir, name, err := openHoldParent(p)
	if err != nil {
		return
	}
	defer unix.Close(dir)
	// Removed through the directory it was found in: a parent renamed and
	// replaced meanwhile (by a command still running over the root) cannot
	// make the removal land in the new one.
	if sameFileAt(fd, dir, name) {
		removeHoldAt(dir, name)
	}
}

// sameFileAt reports whether name under dir is the file open at fd.
func sameFileAt(fd, dir int, name string) bool {
	var a, b unix.Stat_t
	return unix.Fstat(fd, &a) == nil && unix.Fstatat(dir, name, &b, unix.AT_SYMLINK_NOFOLLOW) == nil &&
		a.Dev == b.Dev && a.Ino == b.Ino
}
