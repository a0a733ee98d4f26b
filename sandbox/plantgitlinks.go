package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// Links and special files in a git dir.
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
// after every command each one in every git dir the walk finds, and in the
// common dir a git dir names inside a writable root, is removed (renamed,
// it would still be a name a branch can take: x.turnstile-untrusted), and
// the result says where it led, whenever it was made: a check that judged
// by change times was passed by renames in a later command, a directory
// made a git dir by putting its refs or commondir back (the
// hundred-and-twenty-fourth review). Its config, hooks and info too: the
// protected list holds them in a git dir that existed when the command
// started (a person's link there refuses the spawn), and a link at info in
// a repository the command made let the person's git gc write its refs
// list outside every root (the hundred-and-twenty-sixth review). A tool
// that builds git dirs of links (Google's repo) loses them in a writable
// root. The object store's loose-object directories are looked into only
// when they changed since the command started (git writes an object by a
// link or rename, which replaces a link, but reads one in place: a FIFO
// there blocks it), or, in a server's later walks, all of them in a git dir
// the last walk did not find and pass (a directory made a git dir by a
// HEAD added beside an object store an earlier command filled: the
// hundred-and-twenty-fourth review). A git dir with more directories than a check looks
// through is quarantined whole, and what lies past the bound is not looked
// at (the reason says so).

// maxGitLinkDirs bounds the directories of one git dir looked through.
var maxGitLinkDirs = 16384 // a variable: tests lower it

// gitLinks removes what gitLinksIn finds in the git dir open at gfd (path
// g) and in the common dir it names inside a writable root. It reports
// whether it quarantined the repository.
func (w *plantWalk) gitLinks(gfd int, g string, unseen bool) bool {
	w.allFanouts = unseen
	defer func() { w.allFanouts = false }()
	budget := maxGitLinkDirs
	w.gitLinksIn(gfd, g, "", false, &budget)
	// Its common dir, where it lies in a writable root (commonDir: read
	// as the repository's judgement reads it; one that is not trusted
	// quarantines the repository there).
	if cd := w.commonDir(gfd, g); cd.fd >= 0 {
		if !cd.outside && cd.path != g {
			w.gitLinksIn(cd.fd, cd.path, "", false, &budget)
		}
		unix.Close(cd.fd)
	}
	if budget >= 0 {
		return false
	}
	w.found = append(w.found, quarantineRepo(gfd, g,
		fmt.Sprintf("its git dir holds more than %d directories, more than the check for links in it looks through: links past the bound may remain, look before putting HEAD back", maxGitLinkDirs)))
	return true
}

// gitLinksIn looks through the directory rel below the git dir; store: it
// is a git dir's object store (its own, or a submodule's under modules/).
func (w *plantWalk) gitLinksIn(gfd int, g, rel string, store bool, budget *int) {
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
			var st unix.Stat_t
			if unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && (w.allFanouts || w.recent(st.Ctim)) {
				w.gitLinksIn(gfd, g, relChild(rel, n), false, budget)
			}
		case t.IsDir():
			// An object store: the git dir's own, or a submodule's under
			// modules/ (a directory of reflogs can hold a HEAD and an
			// "objects" too: the hundred-and-twenty-sixth review).
			w.gitLinksIn(gfd, g, relChild(rel, n), gitDir && n == "objects" && (rel == "" || strings.HasPrefix(rel, "modules/")), budget)
		case t&(fs.ModeSymlink|fs.ModeNamedPipe|fs.ModeSocket|fs.ModeDevice|fs.ModeCharDevice) != 0:
			var st unix.Stat_t
			if unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
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

// dotDotAfterLink reports whether the path raw, as written (not cleaned),
// leads elsewhere than its lexical cleaning: a ".." after a symbolic link
// goes up from where the link leads, as git and the kernel resolve it,
// while the cleaning drops the link with it ("../lnk/../c" in a commondir
// or a .git file: the hundred-and-twenty-sixth review).
func dotDotAfterLink(raw string) bool {
	r1, e1 := filepath.EvalSymlinks(raw)
	r2, e2 := filepath.EvalSymlinks(domain.CleanPath(raw))
	return (e1 == nil) != (e2 == nil) || r1 != r2
}

// worktreeAdmins sets aside each linked work tree's admin dir
// (worktrees/<n> of the git dir open at gfd, path g) whose gitdir file the
// command made or changed: git worktree repair writes "gitdir: <admin
// dir>" into the .git file of the path that file names, so a gitdir
// pointed at a directory of the command's made the person's repair give it
// a work tree whose hooks path (husky's, relative to the work tree) ran
// the command's hook, or write a .git outside every root (the
// hundred-and-twenty-eighth review). A commit in an existing linked work
// tree writes the admin dir's index, HEAD and logs, not its gitdir. An
// admin dir of a held repository that was none of those in worktrees/
// when the command started counts as made, whatever its times: one
// prepared below a directory there, renamed up, keeps them.
func (w *plantWalk) worktreeAdmins(gfd int, g string) {
	wfd, err := unix.Openat(gfd, "worktrees", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(wfd)
	names, err := listAt(wfd, ".")
	if err != nil {
		return
	}
	ids, counted := w.pc.adminIDs[g]
	if w.pc.adminsUncounted[g] {
		w.limits = append(w.limits, fmt.Sprintf("the check knows the linked work trees' admin dirs of %s by their times only (more than %d when the command started)", g, maxAdminIDs))
	}
	for _, n := range names {
		var st unix.Stat_t
		if unix.Fstatat(wfd, n+"/gitdir", &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			continue
		}
		var dst unix.Stat_t
		renamedIn := counted && unix.Fstatat(wfd, n, &dst, unix.AT_SYMLINK_NOFOLLOW) == nil && !ids[[2]uint64{dst.Dev, dst.Ino}]
		if !renamedIn && !w.recent(st.Ctim) && !w.born(wfd, n) {
			continue
		}
		// Its gitdir file is set aside, not the admin dir: git lists
		// every directory of worktrees/ as a work tree's, whatever its
		// name, and an existing work tree keeps its HEAD and index.
		afd, err := unix.Openat(wfd, n, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		w.found = append(w.found, setAsideIn(afd, joinPath(joinPath(g, "worktrees"), n), "gitdir",
			"a linked work tree's gitdir the command made or changed (git worktree repair writes a .git file where it points)"))
		unix.Close(afd)
	}
}
