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

// cachedFSViewByKey is cachedFSView with fp's key (fsViewKey) known.
func cachedFSViewByKey(fp *domain.FilesystemPolicy, key string) *fsView {
	now := time.Now()
	views.mu.Lock()
	c, ok := views.m[key]
	views.mu.Unlock()
	if ok && now.Sub(c.made) < viewTTL {
		return c.v
	}
	v := newFSView(fp)
	views.mu.Lock()
	if views.m == nil || len(views.m) > 4096 {
		views.m = map[string]cachedView{}
	}
	views.m[key] = cachedView{v: v, made: now}
	views.mu.Unlock()
	return v
}
