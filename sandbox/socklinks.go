package sandbox

import (
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// removeHostSocketLinks removes, of the socket files the check after a
// command met in the directories it listed (those the command changed),
// each that is a host listener's file under another name than the one it
// was bound at: a hard link a command made to a socket the host bound
// while it ran (the README's known limit for that command) kept the
// host's service reachable to later commands, whose views mask only the
// names they can find (the hundred-and-sixty-second review;
// hostSocketMasks refuses a command while such a name lies where its walk
// does not find it).
func (pc *plantCheck) removeHostSocketLinks(met []walkedSocket) (found []Quarantine) {
	live, err := hostSocketFiles()
	if err != nil {
		return nil
	}
	for _, w := range met {
		name, ok := live[w.id]
		if !ok || !strings.HasPrefix(name, "/") || linksAt(name, w.id) < 2 || sameEntry(w.path, name) {
			continue
		}
		root := pc.rootOf(w.path)
		if root == "" {
			continue
		}
		q := Quarantine{Path: w.path, Reason: "a second name (a hard link) for the socket of a host service, which would reach it from later commands; removed"}
		if err := unlinkBeneath(root, w.path, w.id); err != nil {
			q.Error = err.Error()
		}
		found = append(found, q)
	}
	return found
}

// dirEntryID names the directory entry at p by its directory's identity
// (followed through symlinks, as a bind or connect resolves it) and its
// name; ok is false when the directory cannot be read.
type dirEntryID struct {
	dir  fileID
	name string
}

func keyOf(p string) (dirEntryID, bool) {
	var st unix.Stat_t
	if unix.Stat(filepath.Dir(p), &st) != nil {
		return dirEntryID{}, false
	}
	return dirEntryID{dir: fileID{dev: st.Dev, ino: st.Ino}, name: filepath.Base(p)}, true
}

// sameEntry reports whether the paths a and b name one directory entry (a
// socket bound through a symlinked directory is listed by the kernel under
// the name it was bound at, and met by a walk under its real one).
func sameEntry(a, b string) bool {
	ka, oka := keyOf(a)
	kb, okb := keyOf(b)
	return oka && okb && ka == kb
}

// unlinkBeneath removes p, a file below root that is id, opening its
// parent from root without following any symlink (a concurrent command
// cannot turn the removal elsewhere).
func unlinkBeneath(root, p string, id fileID) error {
	dir, name := filepath.Split(p)
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return err
	}
	rfd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(rfd)
	pfd, err := unix.Openat2(rfd, rel, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		return err
	}
	defer unix.Close(pfd)
	var st unix.Stat_t
	if err := unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return err
	}
	if st.Dev != id.dev || st.Ino != id.ino {
		return nil // no longer the listener's
	}
	return unix.Unlinkat(pfd, name, 0)
}
