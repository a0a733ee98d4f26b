package sandbox

import (
	"hash/maphash"
	"slices"
	"strconv"
	"sync"

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
	h := decisionFSHash(s)
	decisionFSCache.mu.Lock()
	bucket := decisionFSCache.m[h]
	decisionFSCache.mu.Unlock()
	for _, d := range bucket {
		if d.matches(s) {
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
	return d
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
