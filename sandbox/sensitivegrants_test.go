package sandbox

import (
	"os"
	"strconv"
	"testing"

	"turnstile/domain"
)

// TestGrantInsideSensitivePatternDropped: a grant under a sensitive
// pattern's match is dropped from the view by the pattern itself, without
// listing the matches (/proc/*/environ: every task of every process): a
// read root at /proc/self (where it leads: this process) covers its
// environ and is dropped; the control, a read root at /proc/cpuinfo, which
// no sensitive pattern covers, is kept.
func TestGrantInsideSensitivePatternDropped(t *testing.T) {
	self := "/proc/" + strconv.Itoa(os.Getpid()) + "/environ"
	fp := domain.FilesystemPolicy{Entries: []domain.FilesystemEntry{
		{Kind: domain.PathAppReadRoot, Path: "/proc/self/environ", Access: domain.AccessRead},
		{Kind: domain.PathAppReadRoot, Path: "/proc/cpuinfo", Access: domain.AccessRead},
	}}
	fp.Entries = append(fp.Entries, domain.SensitiveEntries()...)
	v := buildFSView(&fp, false)
	var kept []string
	for _, g := range v.grants {
		if g.Kind == domain.PathAppReadRoot {
			kept = append(kept, g.Path)
		}
	}
	if len(kept) != 1 || kept[0] != "/proc/cpuinfo" {
		t.Fatalf("app read roots kept: %q; want only /proc/cpuinfo (%s is under /proc/*/environ)", kept, self)
	}
}
