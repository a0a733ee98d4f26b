package sandbox

import (
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// removeHostSocketLinks removes, in the writable roots, the names of a host
// listener's socket file other than the one it was bound at: a hard link
// a command made to a socket the host bound while it ran (the README's
// known limit for that command) kept the host's service reachable to
// later commands, whose views mask the sockets they can find (the
// hundred-and-sixty-second review; hostSocketMasks refuses a command while
// such a name lies where no walk finds it).
func (pc *plantCheck) removeHostSocketLinks() (found []Quarantine) {
	live, err := hostSocketFiles()
	if err != nil {
		return nil
	}
	want := map[fileID]int{}
	for id, name := range live {
		if strings.HasPrefix(name, "/") {
			if n := linksAt(name, id); n > 1 {
				want[id] = int(min(n, maxSocketLinks))
			}
		}
	}
	for _, r := range pc.roots {
		if len(want) == 0 {
			break
		}
		for _, w := range walkTree(r, true, want).sockets {
			if want[w.id]--; want[w.id] <= 0 {
				delete(want, w.id)
			}
			if w.path == live[w.id] {
				continue
			}
			q := Quarantine{Path: w.path, Reason: "a second name (a hard link) for the socket of a host service, which would reach it from later commands; removed"}
			if err := unlinkBeneath(r, w.path, w.id); err != nil {
				q.Error = err.Error()
			}
			found = append(found, q)
		}
	}
	return found
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
