package sandbox

import (
	"os"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// openDir opens the directory at path for listing, following symlinks as
// os.Open does, but never anything else: a FIFO, a device or a socket a
// command left where a directory was is refused (ENOTDIR) before open(2)
// can block on it or open a device (os.Open of a FIFO blocks until a
// writer comes: the server's check after a command then never returned,
// the hundred-and-third review).
func openDir(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// readDir is os.ReadDir through openDir: the entries of the directory at
// path, sorted by name.
func readDir(path string) ([]os.DirEntry, error) {
	f, err := openDir(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	slices.SortFunc(ents, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, err
}
