package sandbox

import (
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// A root whose path no longer leads to it.
//
// A command over ws/sub killed before its check leaves its marker in ws's
// below-directory, and the next command over ws checks ws/sub from the
// killed command's start before it runs (catchupfirst.go). What the killed
// command could write lies in ws/sub only: it could not rename ws/sub
// itself (that needs ws, which it could not write, or ws's own marker says
// so). When ws/sub is gone by then, someone else moved or removed it: the
// person, a tool, a test's clean-up. The check used to walk the whole of
// ws from the killed command's start instead, and set aside what anyone
// had made there since: with ws "/" (the suite's commands over "/", a
// person's `turnstile sandbox --root /`), git work trees' gitdir files and
// a running test binary anywhere on the machine.
//
// So the marker also holds the root directory's identity (device, inode
// and birth time: rootID), and the
// catch-up looks for that directory in the enclosing root (relocateBelow:
// every directory of that file system listed, no link followed): found,
// it is checked where it is now, as the killed command's root, with the
// protected list held there; not found in a complete search, nothing of
// it is left there to check. A search cut short by its bound, or a marker without the
// identity, checks the whole enclosing root, as before. A directory that
// now stands at the root's path but is not the root (moved aside, another
// made in its place) is not the killed command's, and the root is looked
// for the same way.

// maxMovedRootDirs bounds the directories the search for a moved root
// lists.
var maxMovedRootDirs = 200_000

// rootID is a directory's identity: its device and inode, and its birth
// time (statx's btime, in nanoseconds; zero where the file system keeps
// none). An inode number is reused as soon as it is freed: a root removed
// and a directory the person made next got the same one here, and was
// taken for the root moved.
type rootID struct {
	dev, ino uint64
	btime    int64
}

// rootDirID returns the identity of the directory root, reached without a
// symlink.
func rootDirID(root string) (rootID, bool) {
	id, _, ok := pathDirID(root)
	return id, ok
}

// pathDirID is rootDirID with the id of the mount the directory is on
// (zero: unknown).
func pathDirID(p string) (id rootID, mnt uint64, ok bool) {
	fd, err := openRootDir(p)
	if err != nil {
		return rootID{}, 0, false
	}
	defer unix.Close(fd)
	return fdDirID(fd)
}

// fdDirID returns the identity of the open directory fd and the id of the
// mount it is on (zero: unknown).
func fdDirID(fd int) (id rootID, mnt uint64, ok bool) {
	var stx unix.Statx_t
	if unix.Statx(fd, "", unix.AT_EMPTY_PATH|unix.AT_STATX_DONT_SYNC, unix.STATX_INO|unix.STATX_TYPE|unix.STATX_BTIME|unix.STATX_MNT_ID, &stx) != nil ||
		stx.Mask&unix.STATX_INO == 0 || stx.Mode&unix.S_IFMT != unix.S_IFDIR {
		return rootID{}, 0, false
	}
	id = rootID{dev: unix.Mkdev(stx.Dev_major, stx.Dev_minor), ino: stx.Ino}
	if stx.Mask&unix.STATX_BTIME != 0 {
		id.btime = stx.Btime.Sec*1e9 + int64(stx.Btime.Nsec)
	}
	if stx.Mask&unix.STATX_MNT_ID != 0 {
		mnt = stx.Mnt_id
	}
	return id, mnt, true
}

// searchStart returns where to look for root, which its path no longer
// leads to: a rename does not leave its mount (EXDEV), so the top of the
// mount its nearest directory still there is on, or enclosing where that
// is lower; and that mount's id. ok is false when that cannot be told.
func searchStart(root, enclosing string) (start string, mnt uint64, ok bool) {
	a := root
	for {
		if _, m, ok := pathDirID(a); ok {
			if m == 0 {
				return "", 0, false
			}
			mnt = m
			break
		}
		if a == enclosing || !domain.PathWithin(a, enclosing) {
			return "", 0, false
		}
		a = filepath.Dir(a)
	}
	for a != enclosing {
		p := filepath.Dir(a)
		_, m, ok := pathDirID(p)
		if !ok {
			return "", 0, false
		}
		if m != mnt {
			break
		}
		a = p
	}
	return a, mnt, true
}

// findMovedRoot looks below start, a directory reached without a symlink,
// for the directory want: its path ("" when not found), and whether the
// search was complete (every directory of the mount mnt below start
// listed, within maxMovedRootDirs). Each directory is opened by its path
// with no symlink on the way (one renamed meanwhile is not followed
// elsewhere). A directory with want's inode but no birth time to tell
// whether it is want or a later one with its number cuts the search
// short: the caller then checks all of the enclosing root.
func findMovedRoot(start string, want rootID, mnt uint64) (found string, complete bool) {
	type key struct{ dev, ino uint64 }
	seen := map[key]bool{}
	stack := []string{start}
	buf := make([]byte, 32<<10)
	for listed := 0; len(stack) > 0; listed++ {
		if listed >= maxMovedRootDirs {
			return "", false
		}
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		fd, err := openRootDir(p)
		if err != nil {
			if p == start || err != unix.ENOENT && err != unix.ENOTDIR && err != unix.ELOOP {
				return "", false // one not listed may hold it
			}
			continue // gone, or a link now: not where a rename put the root
		}
		id, m, ok := fdDirID(fd)
		if !ok || m == 0 {
			unix.Close(fd)
			return "", false
		}
		if m != mnt || seen[key{id.dev, id.ino}] {
			// Another mount (a rename does not leave one), or met before.
			unix.Close(fd)
			continue
		}
		seen[key{id.dev, id.ino}] = true
		if id.dev == want.dev && id.ino == want.ino {
			switch {
			case want.btime != 0 && id.btime == want.btime:
				unix.Close(fd)
				return p, true
			case want.btime == 0 || id.btime == 0:
				unix.Close(fd)
				return "", false
			}
			// A later directory with the same number: not it.
		}
		ok = true
		for {
			n, err := unix.Getdents(fd, buf)
			if err != nil {
				ok = false
				break
			}
			if n <= 0 {
				break
			}
			for b := buf[:n]; len(b) > 0; {
				name, typ, rest := parseDirent(b)
				b = rest
				if name == "" || name == "." || name == ".." || typ != unix.DT_DIR && typ != unix.DT_UNKNOWN {
					continue
				}
				stack = append(stack, joinPath(p, name))
			}
		}
		unix.Close(fd)
		if !ok {
			return "", false
		}
	}
	return "", true
}

// relocateBelow returns where the killed command's root b is to be checked
// (roots: the catch-up's roots, one of which holds it): at its path when
// that still leads to it (or the marker does not say which directory it
// was), where it was moved to, or, when a search cut short did not find
// it, the whole root that holds it; skip when a complete search found it
// nowhere there. note is the check's limit line ("" when the path leads
// to it).
func relocateBelow(b BelowSince, roots []string) (root, note string, skip bool) {
	if b.id.ino == 0 {
		return b.Root, "", false
	}
	if id, ok := rootDirID(b.Root); ok && id == b.id {
		return b.Root, "", false
	}
	var st unix.Stat_t
	if unix.Lstat(b.Root, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
		return b.Root, "", false // a file granted as a root: catchUpBelow's
	}
	enclosing := ""
	for _, r := range roots {
		if domain.PathWithin(b.Root, r) {
			enclosing = r
			break
		}
	}
	if enclosing == "" {
		return b.Root, "", false
	}
	moved, complete := "", false
	start, mnt, ok := searchStart(b.Root, enclosing)
	if ok {
		moved, complete = findMovedRoot(start, b.id, mnt)
	}
	switch {
	case moved != "":
		return moved, fmt.Sprintf("the root of a command killed before its check ran, %s, was moved to %s: checked there from that command's start", b.Root, moved), false
	case complete:
		return "", fmt.Sprintf("the root of a command killed before its check ran, %s, is no longer in %s (removed, or moved out of it): nothing of it was left to check", b.Root, start), true
	}
	return enclosing, fmt.Sprintf("the root of a command killed before its check ran, %s, was not at its path and the search for it in %s was cut short (at most %d directories, each listed in full): all of %s was checked from that command's start", b.Root, enclosing, maxMovedRootDirs, enclosing), false
}
