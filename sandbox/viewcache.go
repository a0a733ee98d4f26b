package sandbox

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"turnstile/domain"
)

// viewTTL bounds how long CheckFile reuses the canonical form of a set of
// roots. Canonicalising every root and protected path costs an lstat per
// path element, on every check; a view is reused only while nothing it
// looked up has changed (viewwatch.go), and for at most viewTTL (changes
// no watch reports: a network file system changed from another host, a
// repository nested deep in a root, walked for at most walkTTL). The path
// being checked is always canonicalised afresh, and the kernel sandbox of
// a command canonicalises its roots again when it starts.
const viewTTL = time.Second

var views struct {
	mu sync.Mutex // guards m
	m  map[string]*cachedView
}

type cachedView struct {
	v    *fsView
	made time.Time
	// gen is the watch generation (watchGen) before the view was built:
	// the view stands while it has not moved on.
	gen uint64
	// renewing is set by the one caller that rebuilds the view when its
	// TTL ran out while nothing watched changed; the others keep using it
	// meanwhile (64 turns of one workspace would otherwise all rebuild it
	// at once, every viewTTL).
	renewing atomic.Bool
}

// fresh reports whether c can be used at now in watch generation gen
// without asking the cache: nothing it looked up has changed and its TTL
// has not run out (current also lets one caller renew it meanwhile; a
// record kept outside the map must not stand past its TTL that way).
func (c *cachedView) fresh(now time.Time, gen uint64) bool {
	return c.gen == gen && now.Sub(c.made) < viewTTL
}

// current reports whether c can be used for a lookup at now in watch
// generation gen: nothing it looked up has changed, and its TTL has not
// run out or another caller is renewing it.
func (c *cachedView) current(now time.Time, gen uint64) bool {
	if c.gen != gen {
		return false
	}
	return now.Sub(c.made) < viewTTL || !c.renewing.CompareAndSwap(false, true)
}

// cachedFSView returns newFSView(fp), reusing a view made from the same
// entries while it stands (cachedFSViewByKey).
func cachedFSView(fp *domain.FilesystemPolicy) *fsView {
	return cachedFSViewByKey(fp, fsViewKey(fp))
}

// fsViewKey is the key cachedFSView files a view of fp under.
func fsViewKey(fp *domain.FilesystemPolicy) string {
	var b strings.Builder
	for _, e := range fp.Entries {
		b.WriteString(string(e.Kind))
		b.WriteByte(0)
		b.WriteString(string(e.Access))
		b.WriteByte(0)
		b.WriteString(e.ResolvedPath)
		b.WriteByte(0)
		b.WriteString(e.Path)
		b.WriteByte(0)
		b.WriteString(e.Within)
		b.WriteByte(0)
		b.WriteString(e.LedTo) // addRule drops a root that leads elsewhere
		if e.Overlay {
			b.WriteString("\x00overlay") // a view's grants carry it (fsRule.Overlay)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// noViewCache makes cachedFSView build every view afresh, unwatched: set
// while a process checks one command and then exits (SandboxCommand),
// for which watching what a view looked up costs more than the cache can
// save (about half of its CPU time, measured with perf).
var noViewCache atomic.Bool

// cachedFSViewByKey is cachedFSView with fp's key (fsViewKey) known. A
// view is reused while nothing it looked up has changed (see viewwatch.go),
// for at most viewTTL; one that cannot be watched is never reused.
func cachedFSViewByKey(fp *domain.FilesystemPolicy, key string) *fsView {
	v, _ := cachedFSViewRecord(fp, key)
	return v
}

// cachedFSViewRecord is cachedFSViewByKey that also returns the cache's
// record of the view (nil when the view is not kept), for a caller that
// keeps it at hand (decisionFS.view): the key of an auto_accept_edits
// snapshot is ~50 KB, hashed and compared on every lookup in the map.
func cachedFSViewRecord(fp *domain.FilesystemPolicy, key string) (*fsView, *cachedView) {
	if noViewCache.Load() {
		return newFSView(fp), nil
	}
	now := time.Now()
	gen, _, watching := watchGen()
	views.mu.Lock()
	c, ok := views.m[key]
	views.mu.Unlock()
	if ok && watching && c.current(now, gen) {
		return c.v, c
	}
	if watching {
		// One build of a key at a generation at a time: the others wait
		// for it (viewsBuilding).
		viewsBuilding.mu.Lock()
		if b := viewsBuilding.m[key]; b != nil && b.gen == gen {
			viewsBuilding.mu.Unlock()
			<-b.done
			return b.v, b.c
		}
		b := &viewBuild{gen: gen, done: make(chan struct{})}
		if viewsBuilding.m == nil {
			viewsBuilding.m = map[string]*viewBuild{}
		}
		viewsBuilding.m[key] = b
		viewsBuilding.mu.Unlock()
		defer func() {
			viewsBuilding.mu.Lock()
			if viewsBuilding.m[key] == b {
				delete(viewsBuilding.m, key)
			}
			viewsBuilding.mu.Unlock()
			close(b.done)
		}()
		b.v, b.c = buildCachedView(fp, key, now, ok, c)
		return b.v, b.c
	}
	return buildCachedView(fp, key, now, ok, c)
}

// viewsBuilding holds the view of each key being built, with the watch
// generation its builder saw first: a caller that finds the view of its
// key stale at that generation waits for that build rather than making
// its own. After any change below a root every decision of every turn
// there found its view stale at once, and each rebuilt it: 32 decisions
// over a workspace holding 256 nested repositories (each one's work tree
// looked up for the protected list's 300 names) took 4.5 s and 300 MB at
// their peak, each build 140 ms and 9 MB.
var viewsBuilding struct {
	mu sync.Mutex
	m  map[string]*viewBuild
}

// viewBuild is a build under way; v (and c, its record when kept) is set
// when done is closed.
type viewBuild struct {
	gen  uint64
	done chan struct{}
	v    *fsView
	c    *cachedView
}

// viewBuilding, when set (tests), is called as a view is built.
var viewBuilding func()

// buildCachedView builds the view of fp and files it under key when it
// can be watched (cachedFSViewByKey; c is the view found there, if ok).
func buildCachedView(fp *domain.FilesystemPolicy, key string, now time.Time, ok bool, c *cachedView) (*fsView, *cachedView) {
	if viewBuilding != nil {
		viewBuilding()
	}
	v, gen, keep := watchedBuild(func() *fsView { return newFSView(fp) }, (*fsView).lookups)
	views.mu.Lock()
	if !keep {
		if ok && views.m[key] == c {
			delete(views.m, key) // nobody keeps using an expired view
		}
		views.mu.Unlock()
		return v, nil
	}
	if views.m == nil || len(views.m) > 4096 {
		views.m = map[string]*cachedView{}
	}
	kept := &cachedView{v: v, made: now, gen: gen}
	views.m[key] = kept
	views.mu.Unlock()
	return v, kept
}
