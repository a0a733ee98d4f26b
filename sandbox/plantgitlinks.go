package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// Symbolic links the command made among the files git writes in a git dir.
//
// A git dir stays writable so that git add and git commit work, and git
// opens many of its own files in place, following a symbolic link: it
// appends to the reflogs (logs/HEAD, logs/refs/…), truncates and writes
// COMMIT_EDITMSG, MERGE_MSG, FETCH_HEAD, a rebase's state. A link the
// command put at one of those names made the person's next git write a file
// outside every root: logs/HEAD -> ~/.bashrc took a reflog line whose branch
// name was the command's shell text (the hundred-and-twentieth review).
// Git makes no symbolic links in a git dir itself (git init's probe of
// whether the file system has them removes its own), so every one the
// command made there, below objects' fan-out excepted, is set aside.

// maxGitLinkDirs bounds the directories of one git dir looked through;
// past it the check says so (a limit of the command's result).
const maxGitLinkDirs = 4096

// gitLinks sets aside every symbolic link made since the command started
// in the git dir open at gfd (path g) and the directories below it, the
// object store's fan-out of loose objects excepted (git writes objects by
// a rename, which replaces a link).
func (w *plantWalk) gitLinks(gfd int, g string) {
	budget := maxGitLinkDirs
	w.gitLinksIn(gfd, g, "", &budget)
	if budget < 0 {
		w.limits = append(w.limits, fmt.Sprintf("the check for links in %s stopped after %d directories", g, maxGitLinkDirs))
	}
}

func (w *plantWalk) gitLinksIn(gfd int, g, rel string, budget *int) {
	if *budget--; *budget < 0 {
		return
	}
	name := rel
	if name == "" {
		name = "."
	}
	fd, err := unix.Openat(gfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	var dst unix.Stat_t
	if unix.Fstat(fd, &dst) != nil {
		return
	}
	// A directory the command added a name to changed; one it did not is
	// looked through for its subdirectories only.
	changed := !time.Unix(dst.Ctim.Unix()).Before(w.since)
	lfd, err := unix.Dup(fd)
	if err != nil {
		return
	}
	dir := os.NewFile(uintptr(lfd), name)
	ents, err := dir.ReadDir(-1) // types from the listing: no stat of each entry
	dir.Close()
	if err != nil {
		return
	}
	for _, e := range ents {
		n := e.Name()
		if path.Base(rel) == "objects" && len(n) == 2 && isHex(n) {
			continue // loose objects: written by a rename
		}
		if strings.Contains(n, domain.UntrustedSuffix) {
			continue // set aside already (a git dir below is walked again), or a name git never writes
		}
		switch t := e.Type(); {
		case t&fs.ModeSymlink != 0:
			var st unix.Stat_t
			if changed && unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK &&
				!time.Unix(st.Ctim.Unix()).Before(w.since) {
				w.found = append(w.found, setAsideIn(fd, joinPath(g, rel), n,
					"a symbolic link the command made in a git dir, through which the person's git would write where it leads"))
			}
		case t.IsDir():
			w.gitLinksIn(gfd, g, relChild(rel, n), budget)
		}
	}
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
