package sandbox

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// walkTTL is how long the walk of one root is reused. The walk costs about
// 10–20 µs a directory (measured: 85 ms for 4096 directories on a loaded
// machine), too much for every spawn; a repository created less than walkTTL
// ago may be missed (and one the command creates itself is never protected).
const walkTTL = 2 * time.Second

// walkCache keeps, per root, the ".git" entries the last walk found.
var walkCache = &walkCacheT{m: map[string]walkResult{}}

type walkCacheT struct {
	mu sync.Mutex // guards m and walking
	m  map[string]walkResult
	// walking holds the walk of each root under way: a caller that finds
	// one waits for it rather than walking the root again. Every view
	// rebuilt at once after a change (each decision of every turn there)
	// walked the root on its own: 32 decisions at once took 2.3 GB of the
	// server's memory and 33 s of its CPU over a root whose one walk takes
	// 70 MB and 1.5 s within its bounds.
	walking map[string]*walkCall
}

// walkCall is a walk under way; r is set when done is closed.
type walkCall struct {
	done chan struct{}
	r    walkResult
}

// walkResult is one walk of a root: the ".git" entries and unix socket
// files it met, and the bounds it reached.
type walkResult struct {
	found, limits []string
	// launchers are the launcher files it met (launcherItem), at most
	// maxWalkLaunchers; launcherOverflow, that there were more.
	launchers        []string
	launcherOverflow bool
	// bazelDirs are the directories holding a Bazel workspace's marker
	// (bazelwrapper.go), at most maxWalkLaunchers.
	bazelDirs []string
	sockets   []walkedSocket
	made      time.Time
}

// get returns the walk of root, made by walk at most walkTTL ago, or the
// one under way.
func (c *walkCacheT) get(root string, walk func(string) walkResult) walkResult {
	now := time.Now()
	c.mu.Lock()
	r, ok := c.m[root]
	if ok && now.Sub(r.made) < walkTTL {
		c.mu.Unlock()
		return r
	}
	if w := c.walking[root]; w != nil {
		c.mu.Unlock()
		<-w.done
		return w.r
	}
	w := &walkCall{done: make(chan struct{})}
	if c.walking == nil {
		c.walking = map[string]*walkCall{}
	}
	c.walking[root] = w
	c.mu.Unlock()
	defer close(w.done)
	defer func() {
		c.mu.Lock()
		delete(c.walking, root)
		c.mu.Unlock()
	}()
	r = walk(root)
	r.made = now
	w.r = r
	c.mu.Lock()
	if len(c.m) > 1024 {
		c.m = map[string]walkResult{}
	}
	c.m[root] = r
	c.mu.Unlock()
	return r
}

// maxDiscoveryNames bounds the names a walk reads, each costing one more
// per discoveryNameUnit bytes: the directory bound alone let one directory
// of millions of names be read whole, held and sorted (a variable for
// tests).
var maxDiscoveryNames = 1 << 20

const discoveryNameUnit = 32

// walkRoot lists the directories below root breadth-first, within the
// bounds, and returns every ".git" entry and unix socket file it meets and
// the bounds it reached. Symlinks and ".git" directories are not entered.
// The result depends on root alone (not on the view: the cache is shared by
// every snapshot); discover keeps the findings the view leaves writable.
func walkRoot(root string) walkResult { return walkTree(root, false, nil) }

// walkTree is walkRoot; with sockets it looks for those socket files only,
// entering ".git" directories too, and stops once it has found as many
// names of each file as want counts (hostSocketMasks).
func walkTree(root string, socketsOnly bool, want map[fileID]int) (r walkResult) {
	return walkTreeWithin(root, socketsOnly, want, maxDiscoveryDirs, maxDiscoveryDepth, maxDiscoveryNames)
}

// walkTreeWithin is walkTree within the bounds given: directories listed,
// depth below root, names read.
func walkTreeWithin(root string, socketsOnly bool, want map[fileID]int, maxDirs, maxDepth, maxNames int) (r walkResult) {
	type item struct {
		dir   string
		depth int
	}
	queue := []item{{root, 0}}
	listed, left, names := 0, 0, maxNames
	for _, n := range want {
		left += n
	}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		if listed >= maxDirs {
			r.limits = append(r.limits, fmt.Sprintf("git dir discovery under %s stopped after %d directories", root, maxDirs))
			return r
		}
		listed++
		ents, dev, err := readDirentsKeep(it.dir, &names, walkKeeps(socketsOnly))
		if errors.Is(err, errTooManyNames) {
			r.limits = append(r.limits, fmt.Sprintf("git dir discovery under %s stopped after %d names", root, maxNames))
			return r
		}
		if err != nil {
			continue
		}
		seenItem := map[string]bool{}
		for _, e := range ents {
			p := joinPath(it.dir, e.name)
			if e.typ == unix.DT_SOCK {
				id := fileID{dev: dev, ino: e.ino}
				if (want == nil && len(r.sockets) < maxWalkSockets) || want[id] > 0 {
					r.sockets = append(r.sockets, walkedSocket{path: p, id: id})
					if left--; want != nil && left == 0 {
						return r
					}
				}
				continue
			}
			if e.name == ".git" && !socketsOnly {
				r.found = append(r.found, p)
				continue
			}
			if e.typ != unix.DT_DIR && !socketsOnly && slices.Contains(bazelMarkers, e.name) &&
				(len(r.bazelDirs) == 0 || r.bazelDirs[len(r.bazelDirs)-1] != it.dir) && len(r.bazelDirs) < maxWalkLaunchers {
				// A directory's entries come together: one with two
				// markers is compared with the last one kept only.
				r.bazelDirs = append(r.bazelDirs, it.dir)
			}
			if e.typ != unix.DT_DIR && !socketsOnly {
				// One a directory per item, spelled as the item is where
				// that spelling is there (on a case-sensitive file system
				// the tool reads that one; other spellings are decoys: a
				// case-insensitive one holds a single entry for all).
				if item, _, ok := launcherItem(p); ok && !seenItem[item] && (e.name == path.Base(item) || !hasDirent(ents, path.Base(item))) {
					seenItem[item] = true
					switch {
					case len(r.launchers) < maxWalkLaunchers:
						r.launchers = append(r.launchers, p)
					case !r.launcherOverflow:
						r.limits = append(r.limits, fmt.Sprintf("launcher files past the first %d below %s", maxWalkLaunchers, root))
						r.launcherOverflow = true
					}
				}
				continue
			}
			if e.typ != unix.DT_DIR {
				continue
			}
			if it.depth+1 > maxDepth {
				r.limits = append(r.limits, fmt.Sprintf("git dir discovery does not look below %s (depth %d)", p, maxDepth))
				continue
			}
			queue = append(queue, item{p, it.depth + 1})
		}
	}
	return r
}

// walkKeeps is what a walk needs of a listing: directories to enter,
// sockets, and ".git" of any type (a file is a pointer to a git dir).
func walkKeeps(socketsOnly bool) func(name []byte, typ uint8) bool {
	return func(name []byte, typ uint8) bool {
		return typ == unix.DT_DIR || typ == unix.DT_SOCK || (!socketsOnly && (string(name) == ".git" || launcherName(name) || bazelMarkerName(name)))
	}
}

// maxWalkLaunchers bounds the launcher files a walk keeps.
const maxWalkLaunchers = 4096

// hasDirent reports whether the listing ents (sorted by name, as
// readDirentsKeep returns it) holds name.
func hasDirent(ents []dirent, name string) bool {
	_, ok := slices.BinarySearchFunc(ents, name, func(e dirent, n string) int { return strings.Compare(e.name, n) })
	return ok
}

// launcherLasts are the last components of the launcher items
// (launcherItem), lower case, and launcherLastLen the longest's length.
var launcherLasts, launcherLastLen = func() (map[string]bool, int) {
	m, longest := map[string]bool{}, 0
	for _, n := range append(slices.Clone(readAtAnyDepth), otherLauncherItems...) {
		last := strings.ToLower(path.Base(n))
		m[last], longest = true, max(longest, len(last))
	}
	return m, longest
}()

// launcherName reports whether name may be a launcher file's (in any
// case; without a string made for the other names). A name spelled with
// other characters that fold to the same (ſ, the Kelvin sign, ligatures)
// may be up to three bytes a letter.
func launcherName(name []byte) bool {
	var buf [64]byte
	if len(name) > min(3*launcherLastLen, len(buf)) {
		return false
	}
	for i, c := range name {
		if c >= 0x80 {
			return launcherLasts[domain.FoldName(string(name))]
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return launcherLasts[string(buf[:len(name)])]
}

// walkedSocket is a socket file a walk met, with its identity.
type walkedSocket struct {
	path string
	id   fileID
}

// dirent is one directory entry as getdents returns it.
type dirent struct {
	name string
	typ  uint8
	ino  uint64
}

// errTooManyNames: a walk's names are spent (maxDiscoveryNames).
var errTooManyNames = errors.New("too many names")

// readDirents lists dir (not following a final symlink) with each entry's
// type and inode (from getdents, no stat per entry; an entry of unknown type
// is looked up), and returns the directory's device when it holds a socket
// file (0 otherwise). Each name spends budget, one more per
// discoveryNameUnit bytes; errTooManyNames once it is spent.
func readDirents(dir string, budget *int) ([]dirent, uint64, error) {
	return readDirentsKeep(dir, budget, nil)
}

// readDirentsKeep is readDirents returning only the entries keep takes
// (nil: all); every name spends budget. A name is made a string only when
// kept: a directory of 100,000 long file names costs a walk that looks
// for directories and ".git" the getdents calls, not 100,000 strings
// sorted (the check of this session's CI: a spawn over such a root cost
// the server ~1 s of CPU).
func readDirentsKeep(dir string, budget *int, keep func(name []byte, typ uint8) bool) ([]dirent, uint64, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, 0, err
	}
	defer unix.Close(fd)
	var out []dirent
	sockets := false
	err = scanDirents(fd, func(name []byte, typ uint8, ino uint64) error {
		if typ == unix.DT_UNKNOWN {
			var est unix.Stat_t
			if unix.Fstatat(fd, string(name), &est, unix.AT_SYMLINK_NOFOLLOW) != nil {
				return nil
			}
			switch est.Mode & unix.S_IFMT {
			case unix.S_IFDIR:
				typ = unix.DT_DIR
			case unix.S_IFSOCK:
				typ = unix.DT_SOCK
			}
		}
		if *budget -= 1 + len(name)/discoveryNameUnit; *budget < 0 {
			return errTooManyNames
		}
		sockets = sockets || typ == unix.DT_SOCK
		if keep == nil || keep(name, typ) {
			out = append(out, dirent{name: string(name), typ: typ, ino: ino})
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	slices.SortFunc(out, func(a, b dirent) int { return strings.Compare(a.name, b.name) })
	var st unix.Stat_t
	if sockets { // the device, only where a socket file needs it
		if err := unix.Fstat(fd, &st); err != nil {
			return nil, 0, err
		}
	}
	return out, st.Dev, nil
}

// scanDirents calls each for every entry of the directory open at fd
// (not "." or ".."), with its name (valid during the call only), its type
// as getdents gives it and its inode, until each returns an error.
// direntBufs holds scanDirents' buffers: a view lists a few directories,
// and a fresh 32 KiB each was a quarter of what building one allocated
// (a fresh process, the helper, pays for new memory in page faults).
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func scanDirents(fd int, each func(name []byte, typ uint8, ino uint64) error) error {
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	for {
		n, err := unix.Getdents(fd, buf)
		if err != nil {
			return err
		}
		if n <= 0 {
			return nil
		}
		for b := buf[:n]; len(b) >= 19; {
			reclen := int(binary.NativeEndian.Uint16(b[16:]))
			if reclen < 19 || reclen > len(b) {
				return errors.New("malformed directory entry")
			}
			name := b[19:reclen]
			if k := bytes.IndexByte(name, 0); k >= 0 {
				name = name[:k]
			}
			typ, ino := b[18], binary.NativeEndian.Uint64(b[0:])
			b = b[reclen:]
			if string(name) == "." || string(name) == ".." {
				continue
			}
			if err := each(name, typ, ino); err != nil {
				return err
			}
		}
	}
}
