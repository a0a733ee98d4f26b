package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestBazelWrapperWatched: at a writable root that is a Bazel workspace
// (MODULE.bazel), tools/bazel, which the person's next `bazel` there runs
// (Bazelisk), cannot be made by a file tool, and one a command made is set
// aside. Controls: tools/other beside it is made and kept, and at a root
// that is no Bazel workspace tools/bazel is made and kept.
func TestBazelWrapperWatched(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{"MODULE.bazel": "module(name = \"x\")\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/tools/bazel", domain.AccessWrite, false); err == nil {
		t.Error("a write decision on tools/bazel in a Bazel workspace was allowed")
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/tools/other", domain.AccessWrite, false); err != nil {
		t.Errorf("control: a write decision on tools/other was refused: %v", err)
	}
	r := sh(t, s, "mkdir tools && printf '#!/bin/sh\\ntouch "+f.marker+"\\n' > tools/bazel && chmod +x tools/bazel && echo o > tools/other && echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if exists(f.ws + "/tools/bazel") {
		t.Errorf("tools/bazel, made by the command in a Bazel workspace, stayed: %+v", r.Quarantined)
	}
	if !exists(f.ws + "/tools/other") {
		t.Errorf("control: tools/other was set aside: %+v", r.Quarantined)
	}

	// An existing wrapper stays read-only.
	g := newPlantFixture(t)
	mkfiles(t, g.ws, map[string]string{"WORKSPACE": "\n", "tools/bazel": "#!/bin/sh\nexec bazel-real \"$@\"\n"})
	s = snapshotFor(t, domain.ModeAutoAcceptEdits, g.ws, machine().Kernel)
	r = sh(t, s, "echo 'touch "+g.marker+"' >> tools/bazel; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if b, _ := os.ReadFile(g.ws + "/tools/bazel"); strings.Contains(string(b), g.marker) {
		t.Errorf("an existing tools/bazel in a Bazel workspace was rewritten: %q", b)
	}

	// Control: no Bazel workspace, no watch.
	h := newPlantFixture(t)
	s = snapshotFor(t, domain.ModeAutoAcceptEdits, h.ws, machine().Kernel)
	r = sh(t, s, "mkdir tools && echo x > tools/bazel && echo done")
	if !strings.Contains(string(r.Stdout), "done") || !exists(h.ws+"/tools/bazel") || len(r.Quarantined) != 0 {
		t.Errorf("control: tools/bazel outside a Bazel workspace was not kept: %d %+v %s", r.ExitCode, r.Quarantined, r.Stderr)
	}

	// A root that is no repository (the walk finds no .git there) is
	// judged as a root.
	k := newPlantFixture(t)
	if err := os.RemoveAll(k.ws + "/.git"); err != nil {
		t.Fatal(err)
	}
	mkfiles(t, k.ws, map[string]string{"REPO.bazel": "\n"})
	s = snapshotFor(t, domain.ModeAutoAcceptEdits, k.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, k.ws+"/tools/bazel", domain.AccessWrite, false); err == nil {
		t.Error("a write decision on tools/bazel at a root that is a Bazel workspace and no repository was allowed")
	}
}

// TestProtectedPatternPsqlrcMinor: psql's start-up file for a minor
// release (.psqlrc-16.4, one of namedFiles) at a writable root: an
// existing one stays read-only, a new one is refused to a write decision
// and set aside after the command that made it. Controls: a name the
// pattern does not match (.psqlrc.bak) is made and kept.
func TestProtectedPatternPsqlrcMinor(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{".psqlrc-16.4": "\\set x 1\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/.psqlrc-17.1", domain.AccessWrite, false); err == nil {
		t.Error("a write decision on a new .psqlrc-17.1 was allowed")
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/.psqlrc.bak", domain.AccessWrite, false); err != nil {
		t.Errorf("control: a write decision on .psqlrc.bak was refused: %v", err)
	}
	r := sh(t, s, "echo '\\! touch "+f.marker+"' >> .psqlrc-16.4; echo '\\! touch "+f.marker+"' > .psqlrc-17.1; echo b > .psqlrc.bak; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if b, _ := os.ReadFile(f.ws + "/.psqlrc-16.4"); strings.Contains(string(b), f.marker) {
		t.Errorf("the existing .psqlrc-16.4 was rewritten: %q", b)
	}
	if exists(f.ws + "/.psqlrc-17.1") {
		t.Errorf(".psqlrc-17.1, made by the command, stayed: %+v", r.Quarantined)
	}
	if !exists(f.ws + "/.psqlrc.bak") {
		t.Errorf("control: .psqlrc.bak was set aside: %+v", r.Quarantined)
	}
}

// TestBazelMarkerName: the walk keeps exactly the markers' names.
func TestBazelMarkerName(t *testing.T) {
	for _, m := range bazelMarkers {
		if !bazelMarkerName([]byte(m)) {
			t.Errorf("%s is not kept", m)
		}
	}
	for _, n := range []string{"BUILD.bazel", "module.bazel", "WORKSPACE.bzl", ""} {
		if bazelMarkerName([]byte(n)) {
			t.Errorf("%q is kept", n)
		}
	}
}

// TestBazelMarkerAfterViewCached: a Bazel marker made at a writable root
// after a decision cached the root's view is seen by the next decision
// (its name is among the view's lookups), not when the view is next
// rebuilt. Control: the same write decision before the marker is allowed,
// and is refused by a view built afresh after it.
func TestBazelMarkerAfterViewCached(t *testing.T) {
	for _, c := range []struct{ name, root, marker string }{
		{"a root that is no repository", "", "MODULE.bazel"}, // a repository's root is watched whole (its .git)
		{"above the root", "sub", "REPO.bazel"},
	} {
		t.Run(c.name, func(t *testing.T) { testBazelMarkerAfterViewCached(t, c.root, c.marker) })
	}
}

func testBazelMarkerAfterViewCached(t *testing.T, sub, marker string) {
	top := tempWorkspace(t)
	mustDo(t, os.RemoveAll(top+"/.git"), os.MkdirAll(top+"/sub", 0o755))
	ws := filepath.Join(top, sub)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, domain.KernelFeatures{LandlockABI: 7, Seccomp: true})
	dc := DecisionChecker{}
	write := func(p string) error {
		_, err := dc.ResolveFile(s, p, domain.AccessWrite, false)
		return err
	}
	if err := write(ws + "/tools/bazel"); err != nil {
		t.Fatalf("control: tools/bazel outside a Bazel workspace was refused: %v", err)
	}
	mustDo(t, os.WriteFile(top+"/"+marker, []byte("\n"), 0o644))
	err := write(ws + "/tools/bazel")
	views.mu.Lock()
	views.m = nil
	views.mu.Unlock()
	if ferr := write(ws + "/tools/bazel"); ferr == nil {
		t.Fatal("control: with a fresh view, tools/bazel in a Bazel workspace was allowed")
	}
	if err == nil {
		t.Error("tools/bazel was allowed after MODULE.bazel was made: the cached view did not watch the marker's name")
	}
}
