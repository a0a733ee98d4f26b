package sandbox

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// The walk behind the check for planted repositories (plantcheck.go). It
// lists every directory below each writable root, so its cost follows the
// root's size: about 15–25 µs a directory where system calls are slow (a
// virtual machine). A directory whose entries did not change since an
// earlier walk listed it is not listed again: the walk remembers, per
// directory, its inode, its change time and its subdirectories, and reuses
// them while a stat shows the same inode and change time (one system call
// instead of four). Any entry made, removed or renamed in a directory
// changes its change time; a listing is reused only when that time was
// already maxStampLag old when it was taken (a change in the same clock
// tick, or the same second on a file system that stamps whole seconds,
// would otherwise leave it equal), on the file systems that stamp change
// times locally (plantMemoFS), and for directories on the root's own file
// system.
//
// A repository is checked when something in it changed since the command
// started, and also when no earlier walk of the root (in this process)
// found it: a second command that moves a planted repository while the
// check of the first one runs may hide it from that check, and the next
// check finds it as one it has not seen, whatever its times say. The first
// walk of a root knows no repository and goes by the times alone.

// Bounds of the walk: maxPlantDirs directories a check, maxPlantDepth below
// a root. What lies beyond is reported in Result.CheckLimits, not checked.
var maxPlantDirs = 200_000 // a variable for tests

const (
	// maxPlantDepth is deeper than a path git could use: beyond PATH_MAX
	// the listing fails (ENAMETOOLONG) first, and is reported.
	maxPlantDepth = 4096
	maxStampLag   = 2 * time.Second
	// maxMemoDirs bounds the directories remembered over all roots.
	maxMemoDirs = 1 << 20
)

// plantMemoFS are the file systems whose change times the walk trusts
// (statfs magic numbers): ext4, xfs, btrfs, tmpfs, f2fs, zfs, overlayfs.
var plantMemoFS = map[int64]bool{0xEF53: true, 0x58465342: true, 0x9123683E: true, 0x01021994: true, 0xF2F52010: true, 0x2FC12FC1: true, 0x794c7630: true}

// memoDir is what a walk found in one directory.
type memoDir struct {
	dev, ino uint64
	ctime    int64 // nanoseconds; -1: too recent to reuse
	subdirs  []string
	// gitDir: the directory holds HEAD and commondir, or HEAD, objects
	// and refs; gitfile: it holds a ".git" file.
	gitDir, gitfile bool
	// vcsLinks are the entries named as another version control system's
	// directory (domain.OtherVCSDir) that are no directory: a symlink
	// leads the tool to a config the walk does not visit there.
	vcsLinks []string
	// agentNames are the entries named as one of agentCandidates (any
	// case), whatever their type: every one (a cap would let decoys in
	// other cases hide the name a host program reads).
	agentNames []string
	// globDenied are the entries a glob deny rule of the profile's
	// matches (plantglob.go).
	globDenied []string
	gen        uint64
}

// rootMemo is what the walks of one root remember. mu is held for a whole
// walk: checks of the same root run one at a time.
type rootMemo struct {
	mu       sync.Mutex
	dev, ino uint64
	gen      uint64              // walks so far; guarded by mu
	dirs     map[string]*memoDir // by path relative to the root; guarded by mu
	// seen are the git dirs (device, inode) the last walk found; guarded
	// by mu.
	seen map[[2]uint64]bool
	// dotGits are the ".git" entries the last walk met, as paths below
	// the root (knownDotGits); set at the end of each walk.
	dotGits atomic.Pointer[[]string]
	// size is len(dirs) at the end of the last walk, for memoFor's bound
	// (read without mu: a walk of another root may hold it).
	size atomic.Int64
}

// knownDotGits returns the ".git" entries (paths) the last check of root
// in this process met, at most maxDepth directories below it, and whether
// a check of it has run.
func knownDotGits(root string, maxDepth int) ([]string, bool) {
	plantMemos.Lock()
	m := plantMemos.m[root]
	plantMemos.Unlock()
	if m == nil {
		return nil, false
	}
	rels := m.dotGits.Load()
	if rels == nil {
		return nil, false
	}
	var out []string
	for _, rel := range *rels {
		if strings.Count(rel, "/") <= maxDepth {
			out = append(out, joinPath(root, rel))
		}
	}
	return out, true
}

var plantMemos = struct {
	sync.Mutex
	m map[string]*rootMemo // by canonical root
}{m: map[string]*rootMemo{}}

// memoFor returns the memo of root, a new one when the root's inode is not
// the one remembered.
func memoFor(root string) *rootMemo {
	plantMemos.Lock()
	defer plantMemos.Unlock()
	m := plantMemos.m[root]
	if m == nil {
		total := 0
		for _, o := range plantMemos.m {
			total += int(o.size.Load()) // as of each one's last walk: a bound, not a count
		}
		if total > maxMemoDirs || len(plantMemos.m) > 1024 {
			plantMemos.m = map[string]*rootMemo{}
		}
		m = &rootMemo{dirs: map[string]*memoDir{}}
		plantMemos.m[root] = m
	}
	return m
}

// run walks every root and quarantines what it must, taking what changed
// at or after since (coarseNow before the command started) for the
// command's doing; limits are what the walk could not cover.
func (pc *plantCheck) run(since time.Time) (found []Quarantine, limits []string) {
	w := &plantWalk{pc: pc, since: since.Truncate(time.Second), buf: make([]byte, 32<<10)}
	for _, root := range pc.roots {
		w.root(root)
	}
	w.found = append(w.found, pc.setAsideCreated()...)
	w.found = append(w.found, pc.setAsideNestedCreated()...)
	w.found = append(w.found, pc.setAsideReplaced()...)
	if pc.catchUp {
		w.found = append(w.found, pc.setAsideCaughtUp(w.since, "/")...)
	}
	w.found = append(w.found, pc.setAsideRelinked()...)
	w.found = append(w.found, pc.setAsideLauncherMatches()...)
	w.found = append(w.found, pc.setAsideWorkspaceFiles()...)
	w.found = append(w.found, pc.setAsidePlantedIndexes()...)
	if len(w.sockets) > 0 {
		w.found = append(w.found, pc.removeHostSocketLinks(w.sockets)...)
	}
	return w.found, append(slices.Clone(pc.discoveryLimits), w.limits...)
}

// catchUpBelow checks root, below one of the command's roots, from since:
// a command over root itself was killed before its check ran (its marker
// was in the below-directory of this command's root), and it could write
// there only. Its own walk of root, as a catch-up (held repositories
// judged as any other), and the protected paths present there made or
// changed since.
//
// The way to root must be as it was: a next command that moved a directory
// above it aside and put a symlink to elsewhere in its place had this walk
// judge, as the server, what lies there from the killed command's start
// (review 202). Where root is not reached without a symlink, or is gone
// (moved aside with what it held), or is no longer the killed command's
// root directory (replaced: another directory or a file in its place,
// catchupreplaced.go), the whole enclosing root is walked from that start
// instead, as before catchUpBelow, and the limits say so.
func (pc *plantCheck) catchUpBelow(root string, since time.Time, replaced bool) (found []Quarantine, limits []string) {
	enclosing := ""
	for _, r := range pc.roots {
		if domain.PathWithin(root, r) {
			enclosing = r
			break
		}
	}
	if enclosing == "" {
		return nil, nil
	}
	at := root
	var st unix.Stat_t
	if replaced {
		// Moved aside, removed, or behind a symlink; another directory or
		// a file in its place: what it held may be anywhere in enclosing.
		limits = append(limits, fmt.Sprintf("the root of a command killed before its check ran, %s, no longer leads to that command's root directory: all of %s was checked from that command's start", root, enclosing))
		at = enclosing
	} else if unix.Lstat(root, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
		// A file granted as a root (review 204: its ENOTDIR was taken for
		// a root gone, and the whole enclosing root checked from the
		// killed start): the command could write that file alone.
		was := pc.catchUp
		pc.catchUp = true
		defer func() { pc.catchUp = was }()
		return pc.setAsideCaughtUp(since.Truncate(time.Second), root), nil
	}
	if fd, err := openRootDir(at); err != nil {
		// Gone (moved aside, with what it held) or behind a symlink.
		limits = append(limits, fmt.Sprintf("the root of a command killed before its check ran, %s, was not reached without a symlink (%v): all of %s was checked from that command's start", root, err, enclosing))
		at = enclosing
	} else {
		unix.Close(fd)
	}
	was := pc.catchUp
	pc.catchUp = true
	defer func() { pc.catchUp = was }()
	w := &plantWalk{pc: pc, since: since.Truncate(time.Second), buf: make([]byte, 32<<10)}
	w.root(at)
	return append(w.found, pc.setAsideCaughtUp(w.since, at)...), append(limits, w.limits...)
}

// openRootDir opens the directory root (an absolute path), refusing every
// symlink on its way.
func openRootDir(root string) (int, error) {
	return unix.Openat2(unix.AT_FDCWD, root, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
}

type plantWalk struct {
	pc *plantCheck
	// since is the command's start, down to the whole second (a file
	// system may stamp whole seconds).
	since  time.Time
	dirs   int
	found  []Quarantine
	limits []string
	buf    []byte

	// Of the root being walked:
	rootPath string
	rootFd   int
	// shared: the root is a world-writable sticky directory (/tmp,
	// sharedDir, not idmapped), whose top entries the command can have
	// made or changed only when they are its uid's or world-writable: the
	// others are other users' and processes', never judged its doing.
	shared bool
	// judged and parsed count the repositories read and the config bytes
	// parsed (plantjudge.go); verdicts are the configs judged.
	judged, parsed int
	verdicts       map[[4]int64]verdict
	memo           *rootMemo
	memoOK         bool // its file system's change times are trusted
	seen           map[[2]uint64]bool
	// cfgRefs memoizes gitConfigRefs by file (configRefsChanged reads
	// the global configs for each repository it judges).
	cfgRefs map[string][]gitConfigRef
	// allFanouts: gitLinks looks into every loose-object directory of the
	// git dir, changed or not.
	allFanouts bool
	// sockets are the socket files in the directories listed.
	sockets []walkedSocket
}

func (w *plantWalk) root(root string) {
	fd, err := openRootDir(root)
	if err != nil {
		if !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.ENOTDIR) { // a file grant holds no repository
			w.limits = append(w.limits, fmt.Sprintf("%s was not checked for planted repositories: %v", root, err))
		}
		return
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	var sfs unix.Statfs_t
	if unix.Fstat(fd, &st) != nil || unix.Fstatfs(fd, &sfs) != nil {
		return
	}
	m := memoFor(root)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dev != st.Dev || m.ino != st.Ino {
		m.dev, m.ino, m.dirs, m.gen, m.seen = st.Dev, st.Ino, map[string]*memoDir{}, 0, nil
	}
	m.gen++
	w.rootPath, w.rootFd, w.memo, w.memoOK = root, fd, m, plantMemoFS[int64(sfs.Type)]
	w.shared = w.pc.cmdUID != 0 && sharedRoot(root, st.Mode)
	w.seen = map[[2]uint64]bool{}
	w.visit("", &st, 0, false)
	m.seen = w.seen
	var dotGits []string
	for rel, d := range m.dirs {
		if d.gen != m.gen {
			delete(m.dirs, rel)
			continue
		}
		if d.gitfile || slices.Contains(d.subdirs, ".git") {
			dotGits = append(dotGits, relChild(rel, ".git"))
		}
	}
	slices.Sort(dotGits)
	m.dotGits.Store(&dotGits)
	m.size.Store(int64(len(m.dirs)))
}

// plantVisitHook, when set (tests), is called as the walk reaches each
// directory: a test moves things under it as a second command would.
var plantVisitHook func(root, rel string)

// visit checks the directory at rel (below the root being walked; st is
// its stat) and every directory below it. moved: a directory above it was
// moved to where it is during the command (see below).
func (w *plantWalk) visit(rel string, st *unix.Stat_t, depth int, moved bool) {
	if w.dirs >= maxPlantDirs {
		if w.dirs == maxPlantDirs {
			w.limits = append(w.limits, fmt.Sprintf("the check for planted repositories stopped after %d directories, at %s", maxPlantDirs, w.path(rel)))
			w.dirs++
		}
		return
	}
	w.dirs++
	if plantVisitHook != nil {
		plantVisitHook(w.rootPath, rel)
	}
	d := w.memo.dirs[rel]
	// A directory that an earlier walk did not find at this path and
	// that changed during the command was made or moved here by it: what
	// lies below it keeps its own times through a rename, so a link made
	// earlier under a name no rule matched, and moved under one that does,
	// is judged whatever its times (the hundred-and-twenty-fourth review).
	// The first walk of a root (one `turnstile sandbox` command) knows no
	// earlier path and goes by the times alone.
	moved = moved || w.memo.gen > 1 && w.memoOK && (d == nil || d.dev != st.Dev || d.ino != st.Ino) && w.recent(st.Ctim)
	if d == nil || d.ctime < 0 || d.dev != st.Dev || d.ino != st.Ino || d.ctime != st.Ctim.Nano() {
		if d = w.list(rel); d == nil {
			return
		}
		w.memo.dirs[rel] = d
		// Only a directory listed again can hold a name made since.
		w.globPlanted(rel, d.globDenied, moved)
	}
	d.gen = w.memo.gen
	if d.gitDir {
		if gfd, err := w.open(rel); err == nil {
			var gst unix.Stat_t
			if unix.Fstat(gfd, &gst) == nil {
				key := [2]uint64{gst.Dev, gst.Ino}
				unseen := w.memo.gen > 1 && !w.memo.seen[key]
				quarantined := w.gitDir(gfd, w.path(rel), unseen)
				w.sequencerState(gfd, w.path(rel))
				w.worktreeAdmins(gfd, w.path(rel))
				if !w.gitLinks(gfd, w.path(rel), unseen) && !quarantined {
					w.seen[key] = true
				}
			}
			unix.Close(gfd)
		}
	}
	if d.gitfile {
		w.gitfile(rel)
	}
	if rel != "" && domain.OtherVCSDir(path.Base(rel)) {
		w.otherVCS(rel)
	}
	for _, name := range d.vcsLinks {
		w.otherVCSLink(rel, name)
	}
	if len(d.agentNames) > 0 {
		w.agentEntries(rel, w.commandsOwn(rel, d.agentNames))
	}
	if len(d.subdirs) > 0 && depth+1 > maxPlantDepth {
		w.limits = append(w.limits, fmt.Sprintf("the check for planted repositories does not look below %s (depth %d)", w.path(rel), maxPlantDepth))
		return
	}
	for _, name := range w.commandsOwn(rel, d.subdirs) {
		child := relChild(rel, name)
		if len(w.path(child)) >= unix.PathMax {
			w.pastPathMax(rel, name)
			continue
		}
		var cst unix.Stat_t
		// A path, not a descriptor: a directory component replaced by a
		// symlink since the listing changed its parent's change time, so
		// the parent was listed again above and no longer names it.
		if unix.Fstatat(w.rootFd, child, &cst, unix.AT_SYMLINK_NOFOLLOW) != nil || cst.Mode&unix.S_IFMT != unix.S_IFDIR {
			continue
		}
		if cst.Dev != st.Dev && w.kernelFS(child) {
			continue
		}
		w.visit(child, &cst, depth+1, moved)
	}
}

// pastPathMax judges the directory name in rel, whose path is PATH_MAX
// bytes or longer: no path reaches it (a lookup fails with ENAMETOOLONG),
// so neither this check nor git by that path, but a repository or an
// agent's file below it is one rename (or a chain of symlinks) from a
// short path (the hundred-and-forty-third review). When the command made
// or changed it, or a directory on its way (a rename above it pushed an
// old one past the bound: the hundred-and-forty-fourth), it is moved to
// the top of the root (renamed in place it stayed as deep, and the next
// command went down to it again) and judged there whatever its times; an
// older one is named in the limits.
func (w *plantWalk) pastPathMax(rel, name string) {
	pfd, err := w.open(rel)
	if err != nil {
		return // replaced since it was listed: the replacing command's to check
	}
	defer unix.Close(pfd)
	var st unix.Stat_t
	if unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return
	}
	if !w.recent(st.Ctim) && !w.recentOnTheWay(rel) {
		w.limits = append(w.limits, fmt.Sprintf("the check for planted repositories does not look below %s: its path is longer than the system looks up (PATH_MAX)", w.path(relChild(rel, name))))
		return
	}
	const reason = "a directory the command made, changed or moved whose path is longer than the system looks up (PATH_MAX)"
	// Past .99 a random name (as setAside): the command could have
	// taken the hundred names itself, and set aside in place the
	// directory stayed as deep (the hundred-and-forty-sixth review).
	for i := 0; i < 108; i++ {
		to := fmt.Sprintf("turnstile-deep%s.%d", domain.UntrustedSuffix, i)
		if i > 99 {
			var b [8]byte
			if _, err := unix.Getrandom(b[:], 0); err != nil {
				break
			}
			to = fmt.Sprintf("turnstile-deep%s.%x", domain.UntrustedSuffix, b)
		}
		err := unix.Renameat2(pfd, name, w.rootFd, to, unix.RENAME_NOREPLACE)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			// Another file system on the way (EXDEV): set aside in place.
			w.found = append(w.found, setAsideIn(pfd, w.path(rel), name, reason))
			return
		}
		w.found = append(w.found, Quarantine{Path: w.path(relChild(rel, name)), Reason: reason + "; moved to the top of the root, and what it holds checked there", MovedTo: w.path(to)})
		var hst unix.Stat_t
		if unix.Fstatat(w.rootFd, to, &hst, unix.AT_SYMLINK_NOFOLLOW) == nil {
			w.visit(to, &hst, 1, true) // judged whatever its times: hidden until now
		}
		return
	}
	w.found = append(w.found, setAsideIn(pfd, w.path(rel), name, reason))
}

// recentOnTheWay reports whether a directory between the root and rel
// (rel included) changed during the command.
func (w *plantWalk) recentOnTheWay(rel string) bool {
	for p := rel; p != "" && p != "."; {
		var st unix.Stat_t
		if unix.Fstatat(w.rootFd, p, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && w.recent(st.Ctim) {
			return true
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return false
}

// commandsOwn is names, at the top of a shared root (w.shared), without
// those the command could not have made or changed: neither its uid's nor
// world-writable. The check after a command with /tmp writable set aside
// what other processes made in /tmp meanwhile (a repository's HEAD, a
// .claude).
func (w *plantWalk) commandsOwn(rel string, names []string) []string {
	if !w.shared || rel != "" || len(names) == 0 {
		return names
	}
	out := make([]string, 0, len(names))
	for _, name := range names {
		var st unix.Stat_t
		if unix.Fstatat(w.rootFd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			continue
		}
		if int(st.Uid) == w.pc.cmdUID || st.Mode&0o002 != 0 {
			out = append(out, name)
		}
	}
	return out
}

// list reads the directory at rel; nil when it cannot be opened beneath
// the root without a symlink.
func (w *plantWalk) list(rel string) *memoDir {
	listed := coarseNow()
	fd, err := w.open(rel)
	switch {
	case err == nil:
	case errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP):
		// Replaced since its parent was listed: that change is the
		// replacing command's to check.
		return nil
	case (errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM)) && rel != "" && w.madeUnreadable(rel):
		return nil
	default:
		w.limits = append(w.limits, fmt.Sprintf("the check for planted repositories could not list %s: %v", w.path(rel), err))
		return nil
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return nil
	}
	d := &memoDir{dev: st.Dev, ino: st.Ino, ctime: st.Ctim.Nano()}
	if !w.memoOK || st.Dev != w.memo.dev || listed.Sub(time.Unix(0, d.ctime)) < maxStampLag {
		d.ctime = -1
	}
	var head, common, objects, refs bool
	for {
		n, err := unix.Getdents(fd, w.buf)
		if err != nil || n <= 0 {
			break
		}
		for b := w.buf[:n]; len(b) > 0; {
			name, typ, rest := parseDirent(b)
			b = rest
			switch name {
			case "", ".", "..":
				continue
			case "HEAD":
				head = true
			case "commondir":
				common = true
			case "objects":
				objects = true
			case "refs":
				refs = true
			case ".git":
				d.gitfile = typ == unix.DT_REG || typ == unix.DT_LNK
			}
			if typ == unix.DT_UNKNOWN {
				var cst unix.Stat_t
				if unix.Fstatat(fd, name, &cst, unix.AT_SYMLINK_NOFOLLOW) == nil && cst.Mode&unix.S_IFMT == unix.S_IFDIR {
					typ = unix.DT_DIR
				}
			}
			if typ != unix.DT_DIR && domain.OtherVCSDir(name) {
				d.vcsLinks = append(d.vcsLinks, name)
			}
			if typ == unix.DT_SOCK || typ == unix.DT_UNKNOWN {
				// removeHostSocketLinks looks at it: a directory the
				// command changed (one listed again) may hold its link
				// to a host's socket, at any depth the walk goes.
				var sst unix.Stat_t
				if unix.Fstatat(fd, name, &sst, unix.AT_SYMLINK_NOFOLLOW) == nil && sst.Mode&unix.S_IFMT == unix.S_IFSOCK && len(w.sockets) < maxWalkSockets {
					w.sockets = append(w.sockets, walkedSocket{path: w.path(relChild(rel, name)), id: fileID{dev: sst.Dev, ino: sst.Ino}})
				}
			}
			if agentCandidate(name) {
				d.agentNames = append(d.agentNames, name)
			}
			if w.pc.globDenies(w.path(relChild(rel, name)), name, typ == unix.DT_LNK) {
				d.globDenied = append(d.globDenied, name)
			}
			if typ == unix.DT_DIR && len(d.subdirs) <= maxPlantDirs {
				d.subdirs = append(d.subdirs, name)
			}
		}
	}
	d.gitDir = head && (common || objects && refs)
	return d
}

// madeUnreadable sets aside (setAside) the directory at rel, which the
// check cannot list, when the command made it so (its change time is
// recent: a chmod, or a directory made with no read permission): git
// passes through a directory it may search but not list, and a repository
// below would otherwise go unchecked (a server that is not root). One that
// was unreadable before the command is named in the limits instead.
func (w *plantWalk) madeUnreadable(rel string) bool {
	var st unix.Stat_t
	if unix.Fstatat(w.rootFd, rel, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || !w.recent(st.Ctim) {
		return false
	}
	parent, name := "", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		parent, name = rel[:i], rel[i+1:]
	}
	const reason = "a directory the command made that the check cannot list"
	pfd, err := w.open(parent)
	if err != nil {
		w.found = append(w.found, Quarantine{Path: w.path(rel), Reason: reason, Error: err.Error()})
		return true
	}
	defer unix.Close(pfd)
	w.found = append(w.found, setAsideIn(pfd, w.path(parent), name, reason))
	return true
}

// kernelFS reports whether the directory at rel (a mount point) holds a
// kernel's pseudo file system, proc or sysfs: no process makes a file of
// its choosing there, so nothing can be planted in them; a turn rooted at
// "/" walked every task of every process in /proc, and each fdinfo it
// could not read was a line of the result's limits.
func (w *plantWalk) kernelFS(rel string) bool {
	fd, err := w.open(rel)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	var sfs unix.Statfs_t
	if unix.Fstatfs(fd, &sfs) != nil {
		return false
	}
	return sfs.Type == unix.PROC_SUPER_MAGIC || sfs.Type == unix.SYSFS_MAGIC
}

// open opens the directory at rel beneath the root being walked, refusing
// every symlink on the way.
func (w *plantWalk) open(rel string) (int, error) {
	if rel == "" {
		rel = "."
	}
	return unix.Openat2(w.rootFd, rel, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
}

func (w *plantWalk) path(rel string) string { return joinPath(w.rootPath, rel) }

func relChild(rel, name string) string {
	if rel == "" {
		return name
	}
	return rel + "/" + name
}

// parseDirent reads one linux_dirent64 from b: its name, its type and
// what follows it.
func parseDirent(b []byte) (name string, typ uint8, rest []byte) {
	if len(b) < 19 {
		return "", 0, nil
	}
	reclen := int(b[16]) | int(b[17])<<8
	if reclen < 19 || reclen > len(b) {
		return "", 0, nil
	}
	typ = b[18]
	nb := b[19:reclen]
	for i, c := range nb {
		if c == 0 {
			nb = nb[:i]
			break
		}
	}
	return string(nb), typ, b[reclen:]
}
