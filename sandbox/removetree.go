package sandbox

import (
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
// processes are gone when it runs, so nothing moves the tree meanwhile.
func removeTreeAt(dir string) error {
	if err := os.RemoveAll(dir); err == nil {
		return nil
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	var names []string // from dir down to the directory open at fd
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
			fd, names = next, append(names, sub)
			continue
		}
		if len(names) == 0 {
			unix.Close(fd)
			return unix.Rmdir(dir)
		}
		up, err := unix.Openat(fd, "..", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			return err
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
