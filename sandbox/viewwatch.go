package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// A cached view (viewcache.go) holds facts about the filesystem: where each
// root, protected path and git dir of a snapshot leads. The agent can change
// them — point a protected ".claude" symlink at another directory, move a
// ".git" aside — and a view that still holds the old facts fails open (the
// new target is not protected). So a view is reused only while nothing it
// looked up has changed, which the kernel reports: an inotify watch on every
// directory the view looked a name up in. The kernel queues the event
// before the rename, unlink or write that caused it returns, so a decision
// that starts afterwards and reads the queue sees it (one non-blocking read
// when nothing happened). Watches are on inodes, so a change made through a
// bind mount or another mount namespace is reported too; a change made on
// another host (a network file system) is not, and the view's TTL bounds
// that.

// watchMask is what makes a looked-up name resolve differently (created,
// removed, renamed; a pointer file rewritten) or a watched directory go.
const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_MODIFY |
	unix.IN_CLOSE_WRITE | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR

// maxWatchedDirs bounds the watches; past it they start again (and every
// cached view with them).
const maxWatchedDirs = 8192

// lookup is one name looked up in a directory (name "" stands for any name:
// a git dir, whose files discovery reads).
type lookup struct{ dir, name string }

type watchedDir struct {
	// names are the names looked up in the directory; nil is any name.
	names map[string]bool
	// seq is when the watch was added (viewWatch.seq at the time).
	seq uint64
}

// viewWatcher is the inotify instance that watches what cached views looked
// up.
type viewWatcher struct {
	mu     sync.Mutex // guards everything below
	fd     int        // the inotify instance, non-blocking; 0 until made, -1 when unavailable
	gen    uint64     // bumped by every event that concerns a looked-up name
	seq    uint64     // bumped by every new watch
	dirs   map[int32]*watchedDir
	byPath map[string]int32
	buf    [16 << 10]byte
	// drains counts the reads of the queue begun (watchGen), changed only
	// with mu held.
	drains atomic.Uint64
}

var viewWatch viewWatcher

// watchGen returns the current generation after reading every queued
// event; ok is false when the filesystem cannot be watched (nothing may be
// cached then).
//
// Decisions at once share a read: a caller that finds, once it holds the
// lock, that a read started after it arrived (and, the lock held, has
// ended) reads nothing itself. That read began after every event queued
// before this caller came, so it consumed them. Every decision used to
// read under the lock in turn, and the lock was most of the contention of
// 64 turns deciding at once.
func watchGen() (gen, seq uint64, ok bool) {
	w := &viewWatch
	arrived := w.drains.Load()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd == 0 {
		w.reset()
	}
	if w.fd < 0 {
		return 0, 0, false
	}
	if w.drains.Load() == arrived {
		w.drains.Add(1)
		w.drain()
	}
	return w.gen, w.seq, w.fd >= 0
}

// reset starts a new inotify instance (dropping every watch) and a new
// generation. w.mu is held.
func (w *viewWatcher) reset() {
	if w.fd > 0 {
		unix.Close(w.fd)
	}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		fd = -1
	}
	w.fd, w.gen, w.dirs, w.byPath = fd, w.gen+1, map[int32]*watchedDir{}, map[string]int32{}
}

// drain reads the queued events. w.mu is held.
func (w *viewWatcher) drain() {
	for {
		n, err := unix.Read(w.fd, w.buf[:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if n <= 0 || err != nil {
			if err != nil && !errors.Is(err, unix.EAGAIN) {
				w.reset() // an instance that cannot be read says nothing
			}
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			name := ""
			if ev.Len > 0 {
				b := w.buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
				if i := strings.IndexByte(string(b), 0); i >= 0 {
					b = b[:i]
				}
				name = string(b)
			}
			off += unix.SizeofInotifyEvent + int(ev.Len)
			d := w.dirs[ev.Wd]
			switch {
			case ev.Mask&unix.IN_Q_OVERFLOW != 0:
				w.gen++ // events were lost: anything may have changed
			case d == nil:
			case ev.Mask&(unix.IN_IGNORED|unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_UNMOUNT) != 0:
				// The directory is gone, or elsewhere: its path (and every
				// path below it) may name another directory now, which a
				// later view must watch anew.
				w.forget(ev.Wd)
				w.gen++
			case d.names == nil || d.names[name]:
				w.gen++
			}
		}
	}
}

// forget drops the watch wd and every watch filed at or below one of its
// paths: a watch follows its directory's inode, and a directory renamed
// (or removed) leaves its path, and the paths below it, to whatever is
// made there next. Without this, the path stayed filed under the moved
// directory's watch, and a view built later was kept as watched while
// nothing watched the new directory. w.mu is held.
func (w *viewWatcher) forget(wd int32) {
	var gone []string
	for p, d := range w.byPath {
		if d == wd {
			gone = append(gone, p)
		}
	}
	drop := map[int32]bool{wd: true}
	for p, d := range w.byPath {
		for _, g := range gone {
			if domain.PathWithin(p, g) {
				drop[d] = true
			}
		}
	}
	for p, d := range w.byPath {
		if drop[d] {
			delete(w.byPath, p)
		}
	}
	for d := range drop {
		if w.dirs[d] != nil {
			delete(w.dirs, d)
			unix.InotifyRmWatch(w.fd, uint32(d))
		}
	}
}

// watchLookups adds a watch for every directory of ls that has none yet and
// records the names. It reports false when one cannot be added (the view
// must not be cached).
func watchLookups(ls []lookup) bool {
	w := &viewWatch
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd == 0 {
		w.reset()
	}
	if w.fd < 0 {
		return false
	}
	if len(w.dirs)+len(ls) > maxWatchedDirs {
		w.reset()
		if w.fd < 0 {
			return false
		}
	}
	for _, l := range ls {
		wd, ok := w.byPath[l.dir]
		if !ok {
			n, err := addWatchNoFollow(w.fd, l.dir)
			if err != nil {
				return false
			}
			wd = int32(n)
			w.byPath[l.dir] = wd
		}
		d := w.dirs[wd]
		if d == nil {
			w.seq++
			d = &watchedDir{names: map[string]bool{}, seq: w.seq}
			w.dirs[wd] = d
		}
		switch {
		case l.name == "":
			d.names = nil
		case d.names != nil:
			d.names[l.name] = true
		}
	}
	return true
}

// watchAddHook, when set (tests), is called in addWatchNoFollow before the
// directory is opened.
var watchAddHook func(dir string)

// addWatchNoFollow adds a watch on the directory dir, which must be reached
// through no symbolic link: dir is a canonical path the view's walk
// resolved, and a component swapped for a link since (by the agent, between
// the walk and the watch) would put the watch on the link's target, filed
// under dir's path. A later view would then count dir as watched while
// nothing watched it (review 111's lead). The directory is opened with
// RESOLVE_NO_SYMLINKS and the watch added through its descriptor.
func addWatchNoFollow(ifd int, dir string) (int, error) {
	if watchAddHook != nil {
		watchAddHook(dir)
	}
	fd, err := unix.Openat2(unix.AT_FDCWD, dir, &unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	if err != nil {
		return -1, err
	}
	defer unix.Close(fd)
	return unix.InotifyAddWatch(ifd, "/proc/self/fd/"+strconv.Itoa(fd), watchMask)
}

// watchedBefore reports whether every lookup of ls was watched by a watch
// added no later than seq (before a view was built).
func watchedBefore(ls []lookup, seq uint64) bool {
	w := &viewWatch
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, l := range ls {
		wd, ok := w.byPath[l.dir]
		if !ok {
			return false
		}
		d := w.dirs[wd]
		if d == nil || d.seq > seq || (d.names != nil && (l.name == "" || !d.names[l.name])) {
			return false
		}
	}
	return true
}

// lookupsOf appends to out every (directory, name) lookup that canonicalWalk
// makes for the absolute path abs: it follows the same walk.
func lookupsOf(abs string, out []lookup) []lookup {
	return lookupsOfMemo(abs, out, nil)
}

// linkFact is what lookupsOf learnt of a path: whether it exists, is a
// directory, and where it leads if it is a symlink.
type linkFact struct {
	missing, dir, link bool
	target             string // a link's, or "" when it cannot be read
}

// lookupsOfMemo is lookupsOf with the facts of the paths it met kept in
// memo (nil: none kept), for one view's many paths under shared parents:
// the lookups of an auto_accept_edits view lstat'ed each parent once for
// every path below it, thousands of calls every viewTTL.
func lookupsOfMemo(abs string, out []lookup, memo map[string]linkFact) []lookup {
	todo := splitPath(abs)
	cur := "/"
	for hops := 0; len(todo) > 0; {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = parentDir(cur)
			continue
		}
		out = append(out, lookup{dir: cur, name: c})
		next := joinPath(cur, c)
		f, ok := memo[next]
		if !ok {
			f = factOf(next)
			if memo != nil {
				memo[next] = f
			}
		}
		if f.missing {
			return out
		}
		if !f.link {
			if !f.dir {
				return out // nothing is looked up in a file (ENOTDIR)
			}
			cur = next
			continue
		}
		if hops++; hops > maxSymlinkHops {
			return out
		}
		target := f.target
		if target == "" {
			return out
		}
		if strings.HasPrefix(target, "/") {
			cur = "/"
		}
		todo = append(splitPath(target), todo...)
	}
	return out
}

// factOf lstats p (and reads it, a symlink).
func factOf(p string) linkFact {
	fi, err := os.Lstat(p)
	if err != nil {
		return linkFact{missing: true}
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		return linkFact{dir: fi.IsDir()}
	}
	target, _ := os.Readlink(p)
	return linkFact{link: true, target: target}
}

func parentDir(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

// lookups lists what the view's facts depend on: the walk of every rule's
// path (as the snapshot names it and as canonicalised), of every sensitive
// rule's canonicalised prefix and file, and of every nested repository;
// and every git dir as a whole (discovery reads its files).
func (v *fsView) lookups() []lookup { return v.lookupsWith(map[string]linkFact{}) }

// lookupsWith is lookups with the facts of the paths met kept in memo
// (nil: none kept; lookupsOfMemo).
func (v *fsView) lookupsWith(memo map[string]linkFact) []lookup {
	var out []lookup
	for _, rs := range [][]fsRule{v.grants, v.carves, v.pins} {
		for _, r := range rs {
			if r.From != "" {
				out = lookupsOfMemo(r.From, out, memo)
			}
			out = lookupsOfMemo(r.Path, out, memo)
			// A git dir as a whole (discovery reads its files), and a
			// protected directory (a reserved one is held read-only while
			// empty: emptied, it would be held again).
			whole := r.Kind == pathKindGitDir || r.Kind == domain.PathProtected
			if fi, err := os.Lstat(r.Path); whole && err == nil && fi.IsDir() {
				out = append(out, lookup{dir: r.Path})
			}
			if path.Base(r.Path) == ".git" || path.Base(r.From) == ".git" {
				out = append(out, workTree(r.Path)...)
			}
		}
	}
	for _, r := range v.sensitive {
		i := 0
		for i < len(r.parts) && !strings.Contains(r.parts[i], "*") {
			i++
		}
		out = lookupsOfMemo("/"+strings.Join(r.parts[:i], "/"), out, memo)
	}
	for _, p := range v.nested {
		out = append(lookupsOfMemo(p, out, memo), workTree(p)...)
	}
	// Bazel's markers at each writable root and above it (bazelRoot): one
	// made later makes the root's tools/bazel watched.
	for _, g := range v.grants {
		if g.Access != domain.AccessWrite || g.Kind == domain.PathDevice {
			continue
		}
		for dir := g.Path; ; dir = parentDir(dir) {
			for _, m := range bazelMarkers {
				out = append(out, lookup{dir: dir, name: m})
			}
			if dir == "/" {
				break
			}
		}
	}
	return out
}

// workTree is the directory around a ".git" entry as a whole: discovery
// reads its .gitmodules and the pointer file.
func workTree(dotGit string) []lookup {
	if fi, err := os.Lstat(path.Dir(dotGit)); err == nil && fi.IsDir() {
		return []lookup{{dir: path.Dir(dotGit)}}
	}
	return nil
}

// watchedBuild runs build, whose result depends on what lookups lists, so
// that the result can be reused while the watch generation it returns
// stands (watchGen); keep is false when it must not be reused. A result
// built before its lookups were watched is built again under the watches,
// so that a change between the first walk and the watch is not lost.
func watchedBuild[T any](build func() T, lookups func(T) []lookup) (v T, gen uint64, keep bool) {
	gen, seq, ok := watchGen()
	v = build()
	if !ok {
		return v, 0, false
	}
	if ls := lookups(v); !watchedBefore(ls, seq) {
		if !watchLookups(ls) {
			return v, 0, false
		}
		gen, seq, _ = watchGen()
		v = build()
		if ls := lookups(v); !watchedBefore(ls, seq) {
			watchLookups(ls) // it moved meanwhile: kept next time
			return v, 0, false
		}
	}
	return v, gen, true
}
