package sandbox

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// removeTreeAt removes dir and everything below it, as os.RemoveAll does,
// but with a bounded number of descriptors: os.RemoveAll holds one per
// level, so a tree deeper than the process's descriptor limit allows (a
// chain of 2,000 directories a command leaves in its isolated temp dir)
// failed with EMFILE and stayed in the host's /tmp, taking every
// descriptor of the server while it descended (the twenty-sixth review).
// After os.RemoveAll fails, the tree is removed one directory at a time:
// down through the first subdirectory (its parent's descriptor closed),
// each directory's other entries unlinked, up through ".." when it is
// empty, removing it by the name it was entered by. The command's
// processes are gone when it runs, but another turn's full_access command
// (root over the host's /tmp, no lock) may move the tree meanwhile: one
// that moved a directory of the chain into the directory above the data
// directory had the walk climb ".." into it and remove the data directory
// as root (the hundred-and-forty-eighth review). So each ".." is checked
// against the directory that was entered on the way down (its device and
// inode): where it leads elsewhere, the walk stops and the rest stays.
func removeTreeAt(dir string) error {
	if removeAllFirst {
		if err := os.RemoveAll(dir); err == nil {
			return nil
		}
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	var names []string  // from dir down to the directory open at fd
	var ids [][2]uint64 // the identity of each directory entered, dir's first
	id, err := dirID(fd)
	if err != nil {
		unix.Close(fd)
		return err
	}
	ids = append(ids, id)
	for {
		sub, err := emptyBut(fd)
		if err != nil {
			unix.Close(fd)
			return err
		}
		if sub != "" {
			next, err := unix.Openat(fd, sub, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			unix.Close(fd)
			if err != nil {
				return err
			}
			id, err := dirID(next)
			if err != nil {
				unix.Close(next)
				return err
			}
			fd, names, ids = next, append(names, sub), append(ids, id)
			continue
		}
		if len(names) == 0 {
			unix.Close(fd)
			return unix.Rmdir(dir)
		}
		if removeTreeClimbHook != nil {
			removeTreeClimbHook(names)
		}
		up, err := unix.Openat(fd, "..", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			return err
		}
		ids = ids[:len(ids)-1]
		if uid, err := dirID(up); err != nil || uid != ids[len(ids)-1] {
			unix.Close(up)
			return fmt.Errorf("removing %s: a directory of it was moved while it was removed (its parent is another directory now): the rest is left", dir)
		}
		name := names[len(names)-1]
		names = names[:len(names)-1]
		if err := unix.Unlinkat(up, name, unix.AT_REMOVEDIR); err != nil {
			unix.Close(up)
			return err
		}
		fd = up
	}
}

// Tests: removeAllFirst off goes to the walk at once; removeTreeClimbHook
// is called before each climb with the names from dir down.
var (
	removeAllFirst      = true
	removeTreeClimbHook func(names []string)
)

// dirID is the device and inode of the directory open at fd.
func dirID(fd int) ([2]uint64, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return [2]uint64{}, err
	}
	return [2]uint64{st.Dev, st.Ino}, nil
}

// emptyBut unlinks every entry of the directory open at fd that is not a
// directory, and returns the name of a subdirectory if it has one ("" once
// it is empty).
func emptyBut(fd int) (string, error) {
	d, err := unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	f := os.NewFile(uintptr(d), ".")
	defer f.Close()
	for {
		entries, err := f.ReadDir(1024)
		for _, e := range entries {
			if e.IsDir() {
				return e.Name(), nil
			}
			if err := unix.Unlinkat(fd, e.Name(), 0); err != nil && err != unix.ENOENT {
				return "", err
			}
		}
		if err != nil || len(entries) == 0 {
			return "", nil
		}
	}
}
