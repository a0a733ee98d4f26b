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
	if noViewCache.Load() {
		return newFSView(fp)
	}
	now := time.Now()
	gen, _, watching := watchGen()
	views.mu.Lock()
	c, ok := views.m[key]
	views.mu.Unlock()
	if ok && watching && c.current(now, gen) {
		return c.v
	}
	v, gen, keep := watchedBuild(func() *fsView { return newFSView(fp) }, (*fsView).lookups)
	views.mu.Lock()
	if !keep {
		if ok && views.m[key] == c {
			delete(views.m, key) // nobody keeps using an expired view
		}
		views.mu.Unlock()
		return v
	}
	if views.m == nil || len(views.m) > 4096 {
		views.m = map[string]*cachedView{}
	}
	views.m[key] = &cachedView{v: v, made: now, gen: gen}
	views.mu.Unlock()
	return v
}
