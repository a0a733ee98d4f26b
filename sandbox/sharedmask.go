package sandbox

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// sharedMask is one empty, read-only tmpfs holding a file "f" and a
// directory "d", file and directory mode 0 (the root, never bound, 0111): every mask without
// reopened subtrees binds a clone of its file or directory over the masked
// path, so that a spawn makes one tmpfs superblock for all of them instead
// of one per masked path (making and tearing down a tmpfs costs about
// 0.35-0.5 ms here, measured; auto_accept_edits masks four files in /etc
// alone). The clones are bind mounts of the same read-only, empty, mode-0
// inodes: nothing can be written, created, read or listed through any of
// them.
type sharedMask struct {
	mnt int // the detached tmpfs, or -1 until first needed
}

func newSharedMask() *sharedMask { return &sharedMask{mnt: -1} }

// clone returns a new detached bind mount of the shared empty directory
// (isDir) or file.
func (s *sharedMask) clone(isDir bool) (int, error) {
	if s.mnt < 0 {
		// The root is made 0700 and closed to 0111 once "f" and "d"
		// exist: creating them in (or cloning them from) a mode-0 root
		// would need CAP_DAC_OVERRIDE, which an unprivileged spawn
		// (full_access as a non-root server) does not hold. The root is
		// never bound anywhere: only "f" and "d" are.
		mnt, err := emptyTmpfs("0700")
		if err != nil {
			return -1, err
		}
		f, err := unix.Openat(mnt, "f", unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, 0)
		if err == nil {
			unix.Close(f)
			err = unix.Mkdirat(mnt, "d", 0)
		}
		if err == nil {
			err = unix.Fchmodat(mnt, ".", 0o111, 0)
		}
		if err == nil {
			attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
			err = unix.MountSetattr(mnt, "", unix.AT_EMPTY_PATH, &attr)
		}
		if err != nil {
			unix.Close(mnt)
			return -1, fmt.Errorf("the shared mask: %w", err)
		}
		s.mnt = mnt
	}
	name := "f"
	if isDir {
		name = "d"
	}
	return unix.OpenTree(s.mnt, name, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
}

// close releases the detached tmpfs (the bound clones keep it).
func (s *sharedMask) close() {
	if s.mnt >= 0 {
		unix.Close(s.mnt)
		s.mnt = -1
	}
}
