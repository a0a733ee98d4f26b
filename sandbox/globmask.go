package sandbox

import (
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"turnstile/domain"
)

// globMaskEntries returns a deny entry for every path that exists now,
// below the grants of entries (workspace, project and explicit grants; not
// system roots, devices or carve-outs) and at most depth levels below each,
// that rules deny through a glob rule: the rules decide as they do at
// decision time (ResolvePathRules: a more specific rule reopening the path
// wins). The helper masks each like any deny entry (an empty read-only file
// over a file, an empty read-only tmpfs over a directory). Symlinks are not
// followed or masked (their targets are judged where they lie), nor are
// /proc, /sys and /dev walked. Files created after the spawn are not
// covered: the snapshot names that degradation.
func globMaskEntries(entries []domain.FilesystemEntry, rules []domain.PathRule, depth int) []domain.FilesystemEntry {
	out, _ := globMaskScan(entries, rules, depth, 0)
	return out
}

// globMaskScan is globMaskEntries doing at most maxDirs directories' worth
// of work (0: no bound); complete is false when it stopped there. A
// directory read counts one, and so does a name resolved against the rules
// (each costs about as much), and every scanCostEntries entries read count
// one more: a directory the agent fills with a million names is a tree as
// large as one of as many directories.
func globMaskScan(entries []domain.FilesystemEntry, rules []domain.PathRule, depth, maxDirs int) (out []domain.FilesystemEntry, complete bool) {
	// A path is resolved against the rules only when its name matches the
	// last component of a glob deny (resolving every path scanned costs
	// ~15 µs a path; matching a name, well under 1 µs).
	lasts := globDenyLasts(rules)
	if len(lasts) == 0 || depth < 1 {
		return nil, true
	}
	candidate := func(name string) bool { return lastMatches(lasts, name) }
	crules := canonicalRules(rules)
	complete = true
	seen := map[string]bool{}
	// cost counts in entries: a directory read or a name resolved is
	// scanCostEntries of them.
	cost, budget := 0, maxDirs*scanCostEntries
	spend := func(n int) bool {
		cost += n
		if maxDirs > 0 && cost > budget {
			complete = false
		}
		return complete
	}
	var walk func(dir string, left int)
	walk = func(dir string, left int) {
		if left == 0 || seen[dir] || dir == "/proc" || dir == "/sys" || dir == "/dev" || !complete {
			return
		}
		// A path's work grows with its depth (the kernel's lookup of
		// each open, the rules matched against each component): a
		// directory or a name scanDepthUnit components down costs twice.
		weight := scanCostEntries * (1 + strings.Count(dir, "/")/scanDepthUnit)
		if !spend(weight) {
			return
		}
		seen[dir] = true
		ents, err := readDirBounded(dir, maxDirs > 0, spend)
		if err != nil || !complete {
			return
		}
		for _, e := range ents {
			p := filepath.Join(dir, e.Name())
			if e.Type()&os.ModeSymlink != 0 {
				continue
			}
			if !candidate(e.Name()) {
				if e.IsDir() {
					walk(p, left-1)
				}
				if !complete {
					return
				}
				continue
			}
			if !spend(weight) {
				return
			}
			if d := domain.ResolvePathRules(crules, p); d.Access == domain.AccessDeny && d.Rule != nil && d.Rule.Glob {
				out = append(out, domain.FilesystemEntry{Kind: domain.PathExplicit, Path: p, ResolvedPath: p, Access: domain.AccessDeny,
					Provenance: domain.ProvenanceProfile, Origin: d.Rule.Origin, Key: d.Rule.Key})
				continue // masked whole
			}
			if e.IsDir() {
				walk(p, left-1)
			}
			if !complete {
				return
			}
		}
	}
	for _, g := range entries {
		if g.IsCarve() || g.Kind == domain.PathSystemRoot || g.Kind == domain.PathDevice || g.Access == domain.AccessDeny {
			continue
		}
		root := g.ResolvedPath
		if root == "" {
			root = domain.CleanPath(g.Path)
		}
		canon, err := filepath.EvalSymlinks(root)
		if err != nil {
			continue
		}
		if fi, err := os.Stat(canon); err != nil || !fi.IsDir() {
			continue
		}
		walk(canon, depth)
	}
	return out, complete
}

// scanCostEntries is how many directory entries read cost as much as a
// directory read or a name resolved against the rules (about 3 µs against
// 35 to 40 µs on the review machine).
const scanCostEntries = 10

// scanNameUnit is the length of a name that adds its cost in a scan once
// more: the kernel's listing copies it and a glob's last element is
// matched against it, so that a name of 255 bytes costs 8 (a directory of
// 400,000 such names took 5 to 16 s to scan on the review machine, and
// 560 to 840 MB, against 3 µs a short name).
const scanNameUnit = 32

// scanDepthUnit is the number of a path's components that add its cost
// in a scan once more: a name resolved 1,900 levels down costs 39 names'
// worth, about what it takes (0.6 ms on the review machine, against 15 to
// 40 µs near the top); a tree of honest depth costs what it did.
const scanDepthUnit = 50

// readDirBounded reads dir's entries: all at once, sorted, when unbounded,
// else in batches, each paid for with spend before the next is read, so that
// a directory of millions of names is not read whole once the budget is
// spent (nil, nil then).
func readDirBounded(dir string, bounded bool, spend func(n int) bool) ([]os.DirEntry, error) {
	if !bounded {
		return readDir(dir)
	}
	f, err := openDir(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []os.DirEntry
	for {
		batch, err := f.ReadDir(4096)
		n := 0
		for _, e := range batch {
			n += 1 + len(e.Name())/scanNameUnit
		}
		if !spend(n) {
			return nil, nil
		}
		out = append(out, batch...)
		if err == io.EOF || len(batch) == 0 {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// globDenyLasts returns the last components of rules' glob deny patterns.
func globDenyLasts(rules []domain.PathRule) []string {
	var lasts []string
	for _, r := range rules {
		if r.Glob && r.Access == domain.AccessDeny {
			lasts = append(lasts, path.Base(r.Pattern))
		}
	}
	return lasts
}

// lastMatches reports whether the name may be matched by a pattern whose
// last component is one of lasts (a bad pattern counts as matching), in
// any case: a deny matches a name in another case too
// (domain.ResolvePathRules).
func lastMatches(lasts []string, name string) bool {
	lower := domain.FoldName(name)
	for _, l := range lasts {
		if ok, err := path.Match(l, name); l == "**" || err != nil || ok {
			return true
		}
		if ok, _ := path.Match(domain.FoldName(l), lower); ok {
			return true
		}
	}
	return false
}
