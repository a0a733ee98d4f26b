package sandbox

import (
	"strings"
	"sync"
	"time"

	"turnstile/domain"
)

// viewTTL is how long CheckFile reuses the canonical form of a set of roots.
// Canonicalising every root costs an lstat per path element per root, on
// every check; roots are directories that rarely move. The path being
// checked is always canonicalised afresh, and the kernel sandbox of a
// command canonicalises its roots again when it starts.
const viewTTL = time.Second

var views struct {
	mu sync.Mutex // guards m
	m  map[string]cachedView
}

type cachedView struct {
	v    *fsView
	made time.Time
	// gen is the watch generation (watchGen) before the view was built:
	// the view stands while it has not moved on.
	gen uint64
}

// cachedFSView returns newFSView(fp), reusing a view made from the same
// entries less than viewTTL ago.
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
		b.WriteByte('\n')
	}
	return b.String()
}

// cachedFSViewByKey is cachedFSView with fp's key (fsViewKey) known. A
// view is reused while nothing it looked up has changed (see viewwatch.go),
// for at most viewTTL; one that cannot be watched is never reused.
func cachedFSViewByKey(fp *domain.FilesystemPolicy, key string) *fsView {
	now := time.Now()
	gen, seq, watching := watchGen()
	views.mu.Lock()
	c, ok := views.m[key]
	views.mu.Unlock()
	if ok && watching && c.gen == gen && now.Sub(c.made) < viewTTL {
		return c.v
	}
	v := newFSView(fp)
	if !watching {
		return v
	}
	if ls := v.lookups(); !watchedBefore(ls, seq) {
		// Some of what v looked up was not watched while it was built:
		// watch it, then build the view again under the watches.
		if !watchLookups(ls) {
			return v
		}
		gen, seq, _ = watchGen()
		v = newFSView(fp)
		if ls := v.lookups(); !watchedBefore(ls, seq) {
			watchLookups(ls) // it moved meanwhile: cached next time
			return v
		}
	}
	views.mu.Lock()
	if views.m == nil || len(views.m) > 4096 {
		views.m = map[string]cachedView{}
	}
	views.m[key] = cachedView{v: v, made: now, gen: gen}
	views.mu.Unlock()
	return v
}
