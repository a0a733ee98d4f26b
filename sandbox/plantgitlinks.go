package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"

	"golang.org/x/sys/unix"
)

// Links and special files the command made among the files git writes in a
// git dir.
//
// A git dir stays writable so that git add and git commit work, and git
// opens many of its own files in place, following a symbolic link: it
// appends to the reflogs (logs/HEAD, logs/refs/…), truncates and writes
// COMMIT_EDITMSG, MERGE_MSG, FETCH_HEAD, a rebase's state, and links a new
// loose object into objects/xx. A link the command put at one of those
// names made the person's next git write a file outside every root:
// logs/HEAD -> ~/.bashrc took a reflog line whose branch name was the
// command's shell text (the hundred-and-twentieth review); a FIFO there
// made it wait forever (the hundred-and-twenty-second).
//
// Git makes no symbolic link, FIFO, socket or device in a git dir (git
// init's probe of whether the file system has links removes its own), so
// one the command may have put there is removed (renamed, it would still
// be a name a branch can take: x.turnstile-untrusted), and the result says
// where it led. One is the command's to put when it was made or moved
// since the command started, or lies below a directory (the git dir
// itself, whose change time is the spawn's, is judged by its HEAD and its
// birth) that changed since, or in a git dir no earlier walk found: a
// directory holding an old link can be renamed into place (the
// hundred-and-twenty-second review), which changes that directory only.
// A tool that makes git dirs of links (Google's repo) loses them where the
// command ran git; the person's own are kept otherwise. The object store's
// loose-object directories are not looked into (git writes an object by a
// link or rename, which replaces a link), though a link in their place is
// removed. A git dir with more directories than a check looks through (a
// submodule's under modules/ count) is quarantined whole (its HEAD set aside, as an untrusted repository's).

// maxGitLinkDirs bounds the directories of one git dir looked through.
var maxGitLinkDirs = 16384 // a variable: tests lower it

// gitLinks removes what gitLinksIn finds in the git dir open at gfd (path
// g); unseen: no earlier walk of this root found it.
func (w *plantWalk) gitLinks(gfd int, g string, unseen bool) {
	budget := maxGitLinkDirs
	// The git dir's own change time is the spawn's (the names held for
	// the command), not the command's: a git dir put in place by renames
	// shows in its HEAD's change time (renamed back) or its birth.
	all := unseen || w.changed(gfd, []string{"HEAD"}) || w.born(gfd, ".")
	w.gitLinksIn(gfd, g, "", all, false, &budget)
	if budget < 0 {
		w.found = append(w.found, quarantineRepo(gfd, g,
			fmt.Sprintf("its git dir holds more than %d directories, more than the check for links in it looks through", maxGitLinkDirs)))
	}
}

// gitLinksIn looks through the directory rel below the git dir; store: it
// is a git dir's object store (its own, or a submodule's under modules/),
// whose loose-object directories are not looked into.
func (w *plantWalk) gitLinksIn(gfd int, g, rel string, all, store bool, budget *int) {
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
	if rel != "" {
		all = all || w.recent(dst.Ctim)
	}
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
	gitDir := slices.ContainsFunc(ents, func(e os.DirEntry) bool { return e.Name() == "HEAD" && e.Type().IsRegular() })
	for _, e := range ents {
		n, t := e.Name(), e.Type()
		switch {
		case t.IsDir() && store && len(n) == 2 && isHex(n):
			// Loose objects: written by a link or a rename.
		case t.IsDir():
			w.gitLinksIn(gfd, g, relChild(rel, n), all, gitDir && n == "objects", budget)
		case t&(fs.ModeSymlink|fs.ModeNamedPipe|fs.ModeSocket|fs.ModeDevice|fs.ModeCharDevice) != 0:
			var st unix.Stat_t
			if unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || !all && !w.recent(st.Ctim) {
				continue
			}
			w.found = append(w.found, removeGitDirEntry(fd, joinPath(g, rel), n, st.Mode))
		}
	}
}

// removeGitDirEntry removes the link or special file n below dfd (path
// dir), naming in the result what it was.
func removeGitDirEntry(dfd int, dir, n string, mode uint32) Quarantine {
	q := Quarantine{Path: joinPath(dir, n)}
	what := "a FIFO, socket or device"
	if mode&unix.S_IFMT == unix.S_IFLNK {
		buf := make([]byte, 4096)
		k, _ := unix.Readlinkat(dfd, n, buf)
		what = "a symbolic link to " + strconv.Quote(string(buf[:max(k, 0)]))
	}
	q.Reason = what + " in a git dir, which the person's git would write through; removed"
	if err := unix.Unlinkat(dfd, n, 0); err != nil {
		q.Error = err.Error()
	}
	return q
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
