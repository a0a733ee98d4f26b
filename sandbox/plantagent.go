package sandbox

import (
	"errors"
	"io"
	"os"
	"path"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// The check after a command also sets aside the agents' settings
// directories (.claude, .codex, .agents) and the files of readAtAnyDepth
// (.tool-versions) that the command made or changed below a writable root
// that protects them at its top. A file tool may not write them there
// (agentSettingsRefusal): the host's agents and tools read them where a
// person works, not at the root alone (Claude Code's nested skills, whose
// frontmatter hooks it runs itself; a session started in the directory
// reads its settings; asdf runs the program a version's path: names). A
// command in the kernel sandbox may, since nothing in the kernel refuses a
// name; so Run sets aside what it left, as it does a planted repository.

// agentCandidates are the names the walk records in its listings (in
// lower case): the default protected list's reserved names but .git, and
// the items of readAtAnyDepth (the first component of one that has more).
// Which of them a root protects is the snapshot's (plantCheck.agent); the
// listings are kept between walks, so they record the same names whatever
// the snapshot. agentCandidateLen is the longest.
var agentCandidates, agentCandidateLen = func() (map[string]bool, int) {
	m := map[string]bool{}
	for _, p := range domain.DefaultProtectedPaths {
		if p.Reserved && p.Path != ".git" && !strings.Contains(p.Path, "/") {
			m[domain.FoldName(p.Path)] = true
		}
	}
	for _, n := range readAtAnyDepth {
		first, _, _ := strings.Cut(n, "/")
		m[domain.FoldName(first)] = true
	}
	longest := 0
	for n := range m {
		longest = max(longest, len(n))
	}
	return m, longest
}()

// agentCandidate reports whether the walk records the entry name (one of
// agentCandidates, in any case).
func agentCandidate(name string) bool {
	return len(name) <= 3*agentCandidateLen && agentCandidates[domain.FoldName(name)]
}

// maxAgentEntries bounds the entries the check looks at below one agents'
// settings directory; past it the directory counts as changed.
const maxAgentEntries = 1024

// nestedAgentName reports whether name, an entry of the directory parent
// (absolute), is one the snapshot protects at a writable root strictly
// above parent: at the root itself (and the cwd) it is a protected path,
// which the command could not change.
func (pc *plantCheck) nestedAgentName(parent, name string) bool {
	for _, r := range pc.agent {
		if parent == r.rule.Path || !domain.PathWithin(parent, r.rule.Path) {
			continue
		}
		for _, n := range r.names {
			if domain.FoldEqual(n, name) {
				return true
			}
		}
	}
	return false
}

// nestedAgentRests returns, for the items of more than one component that
// the snapshot protects at a writable root strictly above parent and whose
// first component is name (any case), the rest of each (".mvn" and
// "jvm.config").
func (pc *plantCheck) nestedAgentRests(parent, name string) []string {
	var out []string
	for _, r := range pc.agent {
		if parent == r.rule.Path || !domain.PathWithin(parent, r.rule.Path) {
			continue
		}
		for _, n := range r.names {
			if first, rest, ok := strings.Cut(n, "/"); ok && domain.FoldEqual(first, name) && !slices.Contains(out, rest) {
				out = append(out, rest)
			}
		}
	}
	return out
}

// nestedAgentPath reports whether the absolute path p is an item the
// snapshot protects below a writable root, strictly below its top
// (nestedAgentName, or an item of more than one component).
func (pc *plantCheck) nestedAgentPath(p string) bool {
	if pc.nestedAgentName(path.Dir(p), path.Base(p)) {
		return true
	}
	n, dir, ok := anyDepthItem(p)
	first, rest, multi := strings.Cut(n, "/")
	return ok && multi && slices.Contains(pc.nestedAgentRests(dir, first), rest)
}

// keepReadOnlyAgentDirs notes the identity of each read-only carve-out
// (a protected item) named as an agents' directory below a root that
// protects those names: the check leaves it alone while it is still that
// file (a time within the second before the command started would
// otherwise count as the command's change).
func (pc *plantCheck) keepReadOnlyAgentDirs(carves []fsRule) {
	for _, c := range carves {
		if c.Kind != domain.PathProtected || c.Access != domain.AccessRead {
			continue
		}
		if !pc.nestedAgentPath(c.Path) {
			continue
		}
		if pc.roAgent == nil {
			pc.roAgent = map[string]fileID{}
		}
		pc.roAgent[c.Path] = pc.keepID(unix.AT_FDCWD, c.Path)
	}
}

// agentEntries judges the recorded entries of the directory at rel (d's
// listing): each one the snapshot protects above it that the command made
// or changed is set aside, and, for an entry that is the first component
// of such an item (.mvn), the item below it (agentItemBelow).
func (w *plantWalk) agentEntries(rel string, names []string) {
	parent := w.path(rel)
	pfd := -1
	defer func() {
		if pfd >= 0 {
			unix.Close(pfd)
		}
	}()
	for _, name := range names {
		whole, rests := w.pc.nestedAgentName(parent, name), w.pc.nestedAgentRests(parent, name)
		if !whole && len(rests) == 0 || isHeld(joinPath(parent, name)) {
			continue
		}
		if pfd < 0 {
			fd, err := w.open(rel)
			if err != nil {
				return // replaced since it was listed: the replacing command's to check
			}
			pfd = fd
		}
		for _, rest := range rests {
			w.agentItemBelow(pfd, parent, name, rest, 0, false)
		}
		if whole {
			w.agentEntry(pfd, parent, name)
		}
	}
}

// agentEntry sets aside the protected entry name of the directory dfd (at
// dir) when the command made or changed it.
func (w *plantWalk) agentEntry(dfd int, dir, name string) {
	if w.stillReadOnly(dfd, dir, name) {
		return
	}
	budget := maxAgentEntries
	if w.agentChanged(dfd, name, 0, &budget) {
		w.found = append(w.found, setAsideIn(dfd, dir, name,
			"a "+name+" the command made or changed below the writable root: the host's agents and tools read it where a person works (settings, skills and their hooks; the program a version, a toolchain or a launcher setting names)"))
	}
}

// stillReadOnly reports whether the entry name of the directory dfd (at
// dir) was read-only to the command (roAgent) and is still that file, with
// no other name that writes it.
func (w *plantWalk) stillReadOnly(dfd int, dir, name string) bool {
	id, ok := w.pc.roAgent[joinPath(dir, name)]
	return ok && id != (fileID{}) && fileIDAt(dfd, name) == id && !hardLinked(dfd, name)
}

// agentItemBelow judges the item rest below the entry name of the
// directory dfd (at dir): a symbolic link the command made or changed at
// name (its own change time) is set aside whole (the host's program follows
// it); otherwise rest's first component is looked up in the directory name
// leads to (by its name: a case-insensitive file system finds it in any
// case, as the host's tool does) and judged, the last by agentEntry
// (.mvn/jvm.config: the jvm.config, not the wrapper beside it). A directory
// on the way that changed during the command (made, or renamed into place
// with an older item in it) makes the item below count as the command's
// whatever its own times (the hundred-and-thirty-ninth review: a listing
// bounded at 1,024 names missed one past them, and `mv stage sub/.mvn`
// kept an older jvm.config). moved: a directory above was.
func (w *plantWalk) agentItemBelow(dfd int, dir, name, rest string, depth int, moved bool) {
	var st unix.Stat_t
	if depth > 8 || unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK && (moved || w.recent(st.Ctim)) {
		w.found = append(w.found, setAsideIn(dfd, dir, name,
			"a "+name+" link the command made or changed below the writable root: the host's tools read the "+rest+" it leads to where a person works"))
		return
	}
	fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return // no directory: nothing is read below it
	}
	defer unix.Close(fd)
	here := joinPath(dir, name)
	var dst unix.Stat_t
	if unix.Fstat(fd, &dst) == nil && w.recent(dst.Ctim) && !moved {
		// Changed during the command: made or moved here when the last
		// walk (a server's) found no such directory at this path; the
		// first walk of a root cannot tell, and counts it so (a file the
		// command wrote beside the person's jvm.config then sets that
		// aside too).
		moved = true
		if rel, ok := strings.CutPrefix(here, w.rootPath+"/"); ok && w.memo != nil && w.memo.gen > 1 && w.memoOK {
			if d := w.memo.dirs[rel]; d != nil && d.dev == dst.Dev && d.ino == dst.Ino {
				moved = false
			}
		}
	}
	first, more, _ := strings.Cut(rest, "/")
	switch {
	case isHeld(joinPath(here, first)):
	case more != "":
		w.agentItemBelow(fd, here, first, more, depth+1, moved)
	case moved:
		if w.stillReadOnly(fd, here, first) {
			return // the person's (another entry of the directory changed)
		}
		var ist unix.Stat_t
		if unix.Fstatat(fd, first, &ist, unix.AT_SYMLINK_NOFOLLOW) == nil {
			w.found = append(w.found, setAsideIn(fd, here, first,
				"a "+first+" in a directory the command made, changed or moved into place below the writable root: the host's tools read it where a person works"))
		}
	default:
		w.agentEntry(fd, here, first)
	}
}

// agentChanged reports whether the entry name below dfd, or anything below
// it, changed since the command started (its change time: made, renamed,
// written, its mode changed). A symlink is judged by its own time and by
// what it leads to, as the host's programs follow it. Past the budget of
// entries, deeper than 8, or where it cannot be read, it counts as changed.
func (w *plantWalk) agentChanged(dfd int, name string, depth int, budget *int) bool {
	*budget--
	if *budget < 0 || depth > 8 {
		return true
	}
	var st unix.Stat_t
	if unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return false // gone
	}
	if w.recent(st.Ctim) {
		return true
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		if unix.Fstatat(dfd, name, &st, 0) != nil {
			return false // dangling: nothing is read through it
		}
		if w.recent(st.Ctim) {
			return true
		}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return false
	}
	fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return true
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	names, err := f.Readdirnames(*budget + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return true
	}
	for _, n := range names {
		if w.agentChanged(fd, n, depth+1, budget) {
			return true
		}
	}
	return false
}
