package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"turnstile/domain"
)

// Review 201, against 0d0cee1e (the carve-out index made lazily, on a
// built view's 33rd scanning lookup, and stored in an atomic pointer).
// Both tests are "held" probes: they pass on main.

// attack201Workspace is a workspace holding protected items, a linked
// one, and ordinary files.
func attack201Workspace(t *testing.T) string {
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{
		".envrc": "x\n", ".vscode/tasks.json": "{}\n", "mvnreal/jvm.config": "-Xmx1m\n",
		".git/config": "[core]\n", ".git/HEAD": "ref: refs/heads/main\n", "src/main.go": "package main\n",
		".config/mise/config.toml": "", "sub/.envrc": "y\n",
	})
	mustDo(t, os.MkdirAll(filepath.Join(ws, ".git", "objects"), 0o755), os.MkdirAll(filepath.Join(ws, ".git", "refs"), 0o755))
	mustDo(t, os.Symlink("mvnreal", filepath.Join(ws, ".mvn")))
	return ws
}

// attack201Queries are paths around every carve-out of v: itself, below
// it, its parent, its written path, and each in upper case.
func attack201Queries(v *fsView, ws string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		for _, q := range []string{p, strings.ToUpper(p), strings.Replace(p, ws, ws+"/sub/..", 1)} {
			if !seen[q] {
				seen[q] = true
				out = append(out, q)
			}
		}
	}
	for _, c := range v.carves {
		for _, p := range []string{c.Path, c.Path + "/x", filepath.Dir(c.Path), c.From} {
			if p != "" {
				add(p)
			}
		}
	}
	add(ws + "/src/main.go")
	add(ws + "/.mvn/jvm.config")
	add(ws + "/.MVN/JVM.CONFIG")
	return out
}

// TestAttack201_LazyIndexSameAnswers: a built view answers each query the
// same way while it scans (its first 32 lookups) and once it is indexed:
// access, protectedInAnyCase, for every path around every carve-out, in
// both orders. (Held.)
func TestAttack201_LazyIndexSameAnswers(t *testing.T) {
	requireKernel(t, true)
	ws := attack201Workspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
	fp := approvableFS(s).fs

	answer := func(v *fsView, p string) string {
		a, by := v.access(p)
		byp := ""
		if by != nil {
			byp = by.Path
		}
		pf := ""
		if c := v.protectedInAnyCase(p, p); c != nil {
			pf = c.Path
		}
		return fmt.Sprintf("%v by %q; any case %q", a, byp, pf)
	}
	scanned := buildFSView(&fp, true)
	indexed := buildFSView(&fp, true)
	indexed.indexCarves()
	if indexed.standingIndex() == nil {
		t.Fatal("premise: the forced index does not stand")
	}
	qs := attack201Queries(scanned, ws)
	if len(qs) < 3*carveScansBeforeIndex {
		t.Fatalf("premise: only %d queries", len(qs))
	}
	for i, p := range qs {
		// scanned scans for its first queries, then indexes itself.
		if a, b := answer(scanned, p), answer(indexed, p); a != b {
			t.Errorf("query %d %s: a view answered %s (index standing: %v), the same view indexed %s", i, p, a, scanned.carveIdx.Load() != nil, b)
		}
	}
	if scanned.carveIdx.Load() == nil {
		t.Errorf("premise: the view was never indexed after %d queries", len(qs))
	}
}

// TestAttack201_LazyIndexConcurrent: decisions on one cached view made
// from many goroutines at once while it gets indexed (run with -race):
// the same answers as made one at a time on a view of its own. (Held.)
func TestAttack201_LazyIndexConcurrent(t *testing.T) {
	requireKernel(t, true)
	ws := attack201Workspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
	fp := approvableFS(s).fs
	qs := attack201Queries(buildFSView(&fp, true), ws)

	type q struct {
		p  string
		op domain.Access
	}
	var all []q
	for _, p := range qs {
		all = append(all, q{p, domain.AccessWrite}, q{p, domain.AccessRead})
	}
	decide := func(x q) string {
		r, err := DecisionChecker{}.ResolveFile(s, x.p, x.op, false)
		return fmt.Sprintf("%q %v", r, err)
	}
	// The decision itself (resolved path, allowed or the refusal's code),
	// not which carve-out a refusal names.
	verdict := func(a string) string {
		if i := strings.Index(a, ": "); i >= 0 {
			return a[:i]
		}
		return a
	}
	got := make([][]string, 8)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			out := make([]string, len(all))
			for k := range all {
				i := (k + g*7) % len(all) // each goroutine its own order
				out[i] = decide(all[i])
			}
			got[g] = out
		}()
	}
	// The view the decisions start on: a loaded machine may see it expire
	// (viewTTL) or a watched change replace it meanwhile, so the one
	// cached at the end may be a new one, not yet indexed (CI's race pass,
	// beside other packages' tests).
	first := approvableFS(s).view()
	close(start)
	wg.Wait()
	if first.carveIdx.Load() == nil && approvableFS(s).view().carveIdx.Load() == nil {
		t.Errorf("premise: the cached view was never indexed after %d decisions", len(all)*len(got))
	}
	// Reference: one at a time, with a fresh view of its own each time
	// (scanning: never 32 lookups).
	noViewCache.Store(true)
	defer noViewCache.Store(false)
	for i, x := range all {
		want := decide(x)
		for g := range got {
			if verdict(got[g][i]) != verdict(want) {
				t.Errorf("%s %v: concurrently %s, alone %s", x.p, x.op, got[g][i], want)
				break
			}
			if got[g][i] != want {
				t.Logf("%s %v: the same decision, another message: concurrently %s, alone %s", x.p, x.op, got[g][i], want)
				break
			}
		}
	}
}
