package sandbox

import (
	"bytes"
	"hash/maphash"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"turnstile/domain"
)

// decisionFS is what the decision-time file checks read of a snapshot as it
// stands for a call a person may still approve (Approvable, and
// sensitiveOnly for an unrestricted filesystem): the cwd and the filesystem
// policy, with the key of its view (cachedFSView).
//
// It is a pure function of the snapshot's sandbox mode, cwd and filesystem
// policy, so it is cached across decisions by those inputs (compared in full
// on every hit, never trusted to a hash alone): the cache holds no fact about
// the filesystem, and nothing the agent does on disk can make an entry
// stale. Building it costs about as much as the path checks themselves (the
// protected entries of every reopened root, ~40 per root), and every
// decision of a turn used to build it again.
type decisionFS struct {
	// The inputs, copied.
	mode    domain.SandboxMode
	cwd     string
	in      domain.FilesystemPolicy
	fs      domain.FilesystemPolicy
	viewKey string
	// last is the cache's record of the view of fs last used (view).
	last atomic.Pointer[cachedView]
}

// view returns the cached view of d's filesystem (cachedFSViewByKey),
// through the record last used while it stands: the same generation of
// the watches and within its TTL.
func (d *decisionFS) view() *fsView {
	if c := d.last.Load(); c != nil && !noViewCache.Load() {
		if gen, _, watching := watchGen(); watching && c.fresh(time.Now(), gen) {
			return c.v
		}
	}
	v, c := cachedFSViewRecord(&d.fs, d.viewKey)
	if c != nil {
		d.last.Store(c)
	}
	return v
}

// decisionFSCacheMax bounds the cache: one entry per distinct (workspace,
// mode, profile) in use; past it the cache starts again.
const decisionFSCacheMax = 1024

// decisionFSBucketMax bounds the variants kept under one hash.
const decisionFSBucketMax = 8

var decisionFSCache struct {
	mu   sync.Mutex // guards m
	seed maphash.Seed
	m    map[uint64][]*decisionFS // buckets, copied on write
}

func init() { decisionFSCache.seed = maphash.MakeSeed() }

// approvableFS returns the decisionFS of s, from the cache when the same
// inputs were seen before.
func approvableFS(s *domain.TurnExecutionSecuritySnapshot) *decisionFS {
	if d := seenFS(s); d != nil {
		return d
	}
	h := decisionFSHash(s)
	decisionFSCache.mu.Lock()
	bucket := decisionFSCache.m[h]
	decisionFSCache.mu.Unlock()
	for _, d := range bucket {
		if d.matches(s) {
			fsSeen(s, d)
			return d
		}
	}
	a := s.Approvable()
	if a.Sandbox.Filesystem.Unrestricted {
		a.Sandbox.Filesystem = sensitiveOnly(a.Sandbox.Filesystem)
	}
	d := &decisionFS{mode: s.Sandbox.Mode, cwd: s.Sandbox.Cwd, in: cloneFS(s.Sandbox.Filesystem),
		fs: a.Sandbox.Filesystem, viewKey: fsViewKey(&a.Sandbox.Filesystem)}
	decisionFSCache.mu.Lock()
	if decisionFSCache.m == nil || len(decisionFSCache.m) >= decisionFSCacheMax {
		decisionFSCache.m = map[uint64][]*decisionFS{}
	}
	// A bucket holds the variants of one workspace and mode (profiles that
	// differ in an entry); the oldest goes first.
	b := decisionFSCache.m[h]
	if len(b) >= decisionFSBucketMax {
		b = b[1:]
	}
	decisionFSCache.m[h] = append(slices.Clip(b), d)
	decisionFSCache.mu.Unlock()
	fsSeen(s, d)
	return d
}

// The snapshots seen, by the arrays of their filesystem policy: the turns
// of one workspace and mode share a decisionFS, but each holds its own
// copy of the ~200–500 entries, and comparing those with matches (their
// strings at other addresses) was ~14 µs of every decision. A snapshot
// seen before is told by the same arrays holding the same bytes: the same
// string headers are the same strings (Go's strings do not change), so
// an entry changed in place since, or another snapshot reusing the
// arrays, differs in some byte and takes the full comparison.
var decisionFSSeen struct {
	mu sync.Mutex
	m  map[seenKey]*seenFSEntry
	// once are the arrays met once: a snapshot made for one decision (a
	// call's own cwd adds protected entries to a copy: AlsoProtectedAt)
	// is not copied into m; one met again is.
	once map[seenKey]bool
}

// decisionFSSeenMax bounds the snapshots remembered (each a copy of its
// entries' headers, 176 bytes an entry); past it the memory starts again.
const decisionFSSeenMax = 128

type seenKey struct {
	entries *domain.FilesystemEntry
	rules   *domain.PathRule
}

type seenFSEntry struct {
	d            *decisionFS
	mode         domain.SandboxMode
	cwd          string
	unrestricted bool
	depth        int
	entries      []domain.FilesystemEntry // the headers as they were
	rules        []domain.PathRule
}

// seenFS returns the decisionFS of a snapshot seen before, unchanged.
func seenFS(s *domain.TurnExecutionSecuritySnapshot) *decisionFS {
	f := &s.Sandbox.Filesystem
	k := seenKey{unsafe.SliceData(f.Entries), unsafe.SliceData(f.Rules)}
	if k.entries == nil && k.rules == nil {
		return nil
	}
	decisionFSSeen.mu.Lock()
	e := decisionFSSeen.m[k]
	decisionFSSeen.mu.Unlock()
	if e == nil || e.mode != s.Sandbox.Mode || e.cwd != s.Sandbox.Cwd || e.unrestricted != f.Unrestricted ||
		e.depth != f.GlobScanMaxDepth || !sameBytes(e.entries, f.Entries) || !sameBytes(e.rules, f.Rules) {
		return nil
	}
	return e.d
}

// fsSeen remembers that s's filesystem policy, as it is now, is d's, from
// the second time its arrays are met.
func fsSeen(s *domain.TurnExecutionSecuritySnapshot, d *decisionFS) {
	f := &s.Sandbox.Filesystem
	k := seenKey{unsafe.SliceData(f.Entries), unsafe.SliceData(f.Rules)}
	if k.entries == nil && k.rules == nil {
		return
	}
	decisionFSSeen.mu.Lock()
	if !decisionFSSeen.once[k] {
		if decisionFSSeen.once == nil || len(decisionFSSeen.once) >= 4*decisionFSSeenMax {
			decisionFSSeen.once = map[seenKey]bool{}
		}
		decisionFSSeen.once[k] = true
		decisionFSSeen.mu.Unlock()
		return
	}
	decisionFSSeen.mu.Unlock()
	e := &seenFSEntry{d: d, mode: s.Sandbox.Mode, cwd: s.Sandbox.Cwd, unrestricted: f.Unrestricted,
		depth: f.GlobScanMaxDepth, entries: slices.Clone(f.Entries), rules: slices.Clone(f.Rules)}
	decisionFSSeen.mu.Lock()
	if decisionFSSeen.m == nil || len(decisionFSSeen.m) >= decisionFSSeenMax {
		decisionFSSeen.m = map[seenKey]*seenFSEntry{}
	}
	decisionFSSeen.m[k] = e
	decisionFSSeen.mu.Unlock()
}

// sameBytes reports whether a and b hold the same bytes: the same values,
// their strings at the same addresses. False does not mean different.
func sameBytes[T any](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 {
		return true
	}
	n := len(a) * int(unsafe.Sizeof(a[0]))
	return bytes.Equal(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(a))), n),
		unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b))), n))
}

// matches reports whether d was made from the same inputs as s holds.
func (d *decisionFS) matches(s *domain.TurnExecutionSecuritySnapshot) bool {
	f := &s.Sandbox.Filesystem
	return d.mode == s.Sandbox.Mode && d.cwd == s.Sandbox.Cwd && d.in.Unrestricted == f.Unrestricted &&
		d.in.GlobScanMaxDepth == f.GlobScanMaxDepth && slices.Equal(d.in.Entries, f.Entries) && slices.Equal(d.in.Rules, f.Rules)
}

func cloneFS(f domain.FilesystemPolicy) domain.FilesystemPolicy {
	f.Entries, f.Rules = slices.Clone(f.Entries), slices.Clone(f.Rules)
	return f
}

// decisionFSHash hashes a few of the inputs of a decisionFS, enough to
// tell apart the snapshots of different workspaces and modes cheaply: it
// only picks a bucket, and matches decides.
func decisionFSHash(s *domain.TurnExecutionSecuritySnapshot) uint64 {
	var h maphash.Hash
	h.SetSeed(decisionFSCache.seed)
	f := &s.Sandbox.Filesystem
	h.WriteString(string(s.Sandbox.Mode))
	h.WriteByte(0)
	h.WriteString(s.Sandbox.Cwd)
	h.WriteByte(0)
	if f.Unrestricted {
		h.WriteByte(1)
	}
	for _, n := range []int{f.GlobScanMaxDepth, len(f.Entries), len(f.Rules)} {
		h.WriteString(strconv.Itoa(n))
		h.WriteByte(0)
	}
	return h.Sum64()
}
