package sandbox

import (
	"golang.org/x/sys/unix"
)

// A killed command's root that its path no longer leads to.
//
// A command over ws/sub killed before its check leaves its marker in ws's
// below-directory, and the next command over ws checks ws/sub from the
// killed command's start before it runs (catchupfirst.go). Where ws/sub is
// gone or behind a symlink, all of ws is checked from that start
// (catchUpBelow): what ws/sub held may be anywhere in ws now. But where
// another directory, or a file, stood at ws/sub by then (the person moved
// the root aside and made another), that was checked instead, and the
// moved root, with the killed command's plant in it, was not.
//
// So the marker also names the root's directory (device, inode and birth
// time: rootID), and a path that does not lead to that directory has all of
// ws checked, as a root gone does. The birth time because a directory made
// after the root was removed can get its inode number at once (ext4); on
// overlayfs a directory of the lower layer gets another birth time when
// something is first written in it (copy-up): its catch-up is of the whole
// enclosing root, as for a root gone (review 207).
//
// Review 207 also showed why the catch-up does not look for the moved root
// instead and check it alone (b81b2c7a did): a "move" across file systems
// is a copy and a removal (mv's EXDEV fallback), and the person may move
// what the root held out of it before removing it; the plant is then in a
// directory that is not the root's. What the person did since is not told
// from what the killed command did by times, so the whole enclosing root
// is judged, over-broad as that is.

// rootID is a directory's identity: its device and inode, and its birth
// time (statx's btime, in nanoseconds; zero where the file system keeps
// none).
type rootID struct {
	dev, ino uint64
	btime    int64
}

// rootDirID returns the identity of the directory root, reached without a
// symlink.
func rootDirID(root string) (rootID, bool) {
	fd, err := openRootDir(root)
	if err != nil {
		return rootID{}, false
	}
	defer unix.Close(fd)
	var stx unix.Statx_t
	if unix.Statx(fd, "", unix.AT_EMPTY_PATH|unix.AT_STATX_DONT_SYNC, unix.STATX_INO|unix.STATX_TYPE|unix.STATX_BTIME, &stx) != nil ||
		stx.Mask&unix.STATX_INO == 0 || stx.Mode&unix.S_IFMT != unix.S_IFDIR {
		return rootID{}, false
	}
	id := rootID{dev: unix.Mkdev(stx.Dev_major, stx.Dev_minor), ino: stx.Ino}
	if stx.Mask&unix.STATX_BTIME != 0 {
		id.btime = stx.Btime.Sec*1e9 + int64(stx.Btime.Nsec)
	}
	return id, true
}

// rootReplaced reports whether b's marker names the root's directory and
// its path, reached without a symlink, does not lead to it now.
func rootReplaced(b BelowSince) bool {
	if b.id.ino == 0 {
		return false // a marker of an earlier version, or of a file root
	}
	id, ok := rootDirID(b.Root)
	return !ok || id != b.id
}
