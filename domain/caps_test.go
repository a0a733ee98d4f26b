package domain

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

var (
	genPaths   = []string{"/", "/w", "/w/repo", "/w/repo/src", "/w/other", "/usr", "/data"}
	genTools   = []string{"read_file", "apply_patch", "exec_command", "web_fetch"}
	genDomains = []string{"example.com", "api.example.com", "=example.com", "=https://example.com:8443", "=http://example.com", "other.org", "badexample.com"}
	genVars    = []string{"PATH", "HOME", "LANG", "GOPATH", "XDG_*"}
	genCmds    = []string{"sudo", "rm", "git", "go", "make"}
	// genDenyPaths are deny entries, some with a more specific genPaths
	// entry below them that may reopen a subtree.
	genDenyPaths = []string{"/w/repo", "/w/repo/src/secret", "/data", "/w/other/x"}
)

func genSubset(t *rapid.T, label string, from []string) []string {
	var out []string
	for _, x := range from {
		if rapid.Bool().Draw(t, label+x) {
			out = append(out, x)
		}
	}
	return out
}

func genBehavior(t *rapid.T, label string) Behavior {
	return Behavior(rapid.IntRange(0, 2).Draw(t, label))
}

// genBounds draws bounds across every dimension of REFERENCE §6.
func genBounds(t *rapid.T, label string) Bounds {
	b := Unbounded()
	b.Mode = rapid.SampledFrom(Modes).Draw(t, label+"mode")
	b.Policy = CompilePolicy(b.Mode)
	for _, f := range b.Policy.behaviorFields() {
		*f.ptr = genBehavior(t, label+f.name)
	}
	b.Policy.AllowedToolsRestricted = rapid.Bool().Draw(t, label+"toolsR")
	if b.Policy.AllowedToolsRestricted {
		b.Policy.AllowedTools = genSubset(t, label+"tools", genTools)
	}
	b.Policy.DeniedTools = genSubset(t, label+"denied", genTools)
	if b.Policy.AllowedPathsRestricted = rapid.Bool().Draw(t, label+"pathsR"); b.Policy.AllowedPathsRestricted {
		b.Policy.AllowedPaths = genSubset(t, label+"apaths", genPaths)
	}
	b.Policy.normalizeLists()
	b.SandboxMode = rapid.SampledFrom(SandboxModes).Draw(t, label+"sandbox")
	b.Filesystem = FilesystemPolicy{Unrestricted: b.SandboxMode == SandboxUnrestricted && rapid.Bool().Draw(t, label+"fsU")}
	for _, p := range genSubset(t, label+"roots", genPaths) {
		acc := rapid.SampledFrom([]Access{AccessRead, AccessWrite}).Draw(t, label+"acc"+p)
		b.Filesystem.Entries = append(b.Filesystem.Entries, entry(PathExplicit, p, acc, ProvenanceComposer))
	}
	for _, p := range genSubset(t, label+"prot", []string{"/w/repo/.git", "/w/.git", "/w/repo/.git/config"}) {
		acc := rapid.SampledFrom([]Access{AccessRead, AccessWrite}).Draw(t, label+"pacc"+p)
		b.Filesystem.Entries = append(b.Filesystem.Entries, entry(PathProtected, p, acc, ProvenanceSystem))
	}
	for _, p := range genSubset(t, label+"deny", genDenyPaths) {
		kind := rapid.SampledFrom([]PathKind{PathExplicit, PathSensitive}).Draw(t, label+"dkind"+p)
		b.Filesystem.Entries = append(b.Filesystem.Entries, entry(kind, p, AccessDeny, ProvenanceTaskCap))
	}
	b.Filesystem = normalizeEntries(b.Filesystem)
	b.Network = NetworkPolicy{
		Mode:           rapid.SampledFrom(NetworkModes).Draw(t, label+"net"),
		DeniedDomains:  sortedUnique(genSubset(t, label+"deny", genDomains)),
		AllowLocalhost: rapid.Bool().Draw(t, label+"lh"), AllowUnixSockets: rapid.Bool().Draw(t, label+"unix"),
		AllowPrivateNetworks: rapid.Bool().Draw(t, label+"priv"),
	}
	if b.Network.Mode == NetworkRestricted {
		b.Network.AllowedDomains = sortedUnique(genSubset(t, label+"allow", genDomains))
	}
	inherit := rapid.Bool().Draw(t, label+"inherit")
	b.Process = ProcessPolicy{
		ShellEnabled: rapid.Bool().Draw(t, label+"shell"), InheritStdin: rapid.Bool().Draw(t, label+"stdin"),
		InheritSession: rapid.Bool().Draw(t, label+"session"),
		Environment:    EnvironmentPolicy{Inherit: inherit, DeniedPatterns: sortedUnique(genSubset(t, label+"pat", []string{"TOKEN", "SECRET", "KEY"}))},
		MaxDurationMs:  int64(rapid.IntRange(1, 1800).Draw(t, label+"max")) * 1000,
		DeniedCommands: sortedUnique(genSubset(t, label+"dcmd", genCmds)),
	}
	b.Process.DefaultTimeoutMs = min(int64(rapid.IntRange(1, 1800).Draw(t, label+"def"))*1000, b.Process.MaxDurationMs)
	if !inherit {
		b.Process.Environment.AllowedVars = sortedUnique(genSubset(t, label+"vars", genVars))
	}
	b.Process.AllowedCommandFamilies = sortedUnique(genSubset(t, label+"fam", genCmds))
	b.Tmp = rapid.SampledFrom([]TmpPolicy{TmpHost, TmpIsolated}).Draw(t, label+"tmp")
	b.Requirement = rapid.SampledFrom([]BackendRequirement{BackendRequired, BackendOptional}).Draw(t, label+"req")
	return b
}

func boundsJSON(b Bounds) string {
	b.Network, b.Process, b.Filesystem = normNetwork(b.Network), normProcess(b.Process), normalizeEntries(b.Filesystem)
	out, _ := json.Marshal(b)
	return string(out)
}

func TestIntersectCommutativeAndIdempotent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := genBounds(t, "a"), genBounds(t, "b")
		ab, ba := Intersect(a, b), Intersect(b, a)
		if boundsJSON(ab) != boundsJSON(ba) {
			t.Fatalf("not commutative:\n a∩b %s\n b∩a %s", boundsJSON(ab), boundsJSON(ba))
		}
		if boundsJSON(Intersect(ab, ab)) != boundsJSON(ab) {
			t.Fatalf("not idempotent:\n %s\n %s", boundsJSON(Intersect(ab, ab)), boundsJSON(ab))
		}
		if boundsJSON(Intersect(ab, a)) != boundsJSON(ab) || boundsJSON(Intersect(ab, b)) != boundsJSON(ab) {
			t.Fatalf("a∩b intersected again with a side changed:\n r  %s\n ra %s\n rb %s", boundsJSON(ab), boundsJSON(Intersect(ab, a)), boundsJSON(Intersect(ab, b)))
		}
	})
}

// effectiveAccess is what a filesystem policy grants at path x (the
// domain's one definition, AccessAt).
func effectiveAccess(fs FilesystemPolicy, x string) Access { return AccessAt(&fs, x) }

func accessRank(a Access) int { return map[Access]int{AccessDeny: 0, AccessRead: 1, AccessWrite: 2}[a] }

func hostAllowed(n NetworkPolicy, origin string) bool {
	for _, d := range n.DeniedDomains {
		if DomainRuleCovers(d, origin) {
			return false
		}
	}
	switch n.Mode {
	case NetworkEnabled:
		return true
	case NetworkRestricted:
		for _, r := range n.AllowedDomains {
			if DomainRuleCovers(r, origin) {
				return true
			}
		}
	}
	return false
}

// TestIntersectNeverBroader checks, value by value, that nothing the result
// allows is refused by either side.
func TestIntersectNeverBroader(t *testing.T) {
	probePaths := []string{"/", "/w", "/w/repo", "/w/repo/src/a.go", "/w/repo/src/secret/k", "/w/repo/.git/config", "/w/repo/.git/HEAD", "/w/other/x", "/usr/bin", "/data/x", "/etc"}
	origins := []string{"=https://example.com:443", "=https://example.com:8443", "=http://api.example.com:80", "=https://badexample.com:443", "=https://other.org:443", "=https://x.other.org:443"}
	rapid.Check(t, func(t *rapid.T) {
		a, b := genBounds(t, "a"), genBounds(t, "b")
		r := Intersect(a, b)
		all := capDims{true, true, true, true, true}
		if dims := ExceedsParent(r, all, a); len(dims) > 0 {
			t.Fatalf("a∩b exceeds a in %v", dims)
		}
		for _, side := range []Bounds{a, b} {
			if r.Mode.rank() < side.Mode.rank() || r.SandboxMode.rank() < side.SandboxMode.rank() || r.Network.Mode.rank() < side.Network.Mode.rank() {
				t.Fatalf("mode broader: %s/%s/%s vs %s/%s/%s", r.Mode, r.SandboxMode, r.Network.Mode, side.Mode, side.SandboxMode, side.Network.Mode)
			}
			rf, sf := r.Policy.behaviorFields(), side.Policy.behaviorFields()
			for i := range rf {
				if *rf[i].ptr > *sf[i].ptr {
					t.Fatalf("%s broader: %s > %s", rf[i].name, *rf[i].ptr, *sf[i].ptr)
				}
			}
			for _, tool := range genTools {
				if ok, _ := r.Policy.ToolsAllowed(tool); ok {
					if ok2, _ := side.Policy.ToolsAllowed(tool); !ok2 {
						t.Fatalf("tool %s allowed by the result only", tool)
					}
				}
			}
			for _, p := range probePaths {
				if r.Policy.PathAllowed(p) && !side.Policy.PathAllowed(p) {
					t.Fatalf("allowed path %s broader", p)
				}
				if accessRank(effectiveAccess(r.Filesystem, p)) > accessRank(effectiveAccess(side.Filesystem, p)) {
					t.Fatalf("filesystem broader at %s: %s vs %s\n r=%+v\n side=%+v", p, effectiveAccess(r.Filesystem, p), effectiveAccess(side.Filesystem, p), r.Filesystem, side.Filesystem)
				}
			}
			for _, o := range origins {
				if hostAllowed(r.Network, o) && !hostAllowed(side.Network, o) {
					t.Fatalf("network broader for %s:\n r=%+v\n side=%+v", o, r.Network, side.Network)
				}
			}
			if (r.Network.AllowLocalhost && !side.Network.AllowLocalhost) || (r.Network.AllowPrivateNetworks && !side.Network.AllowPrivateNetworks) {
				t.Fatal("network flags broader")
			}
			rp, sp := r.Process, side.Process
			if (rp.ShellEnabled && !sp.ShellEnabled) || (rp.InheritStdin && !sp.InheritStdin) || (rp.InheritSession && !sp.InheritSession) ||
				rp.MaxDurationMs > sp.MaxDurationMs || rp.DefaultTimeoutMs > sp.DefaultTimeoutMs {
				t.Fatalf("process broader: %+v vs %+v", rp, sp)
			}
			for _, v := range append(slices.Clone(genVars), "XDG_CONFIG_HOME", "MY_TOKEN", "RANDOM") {
				if rp.Environment.EnvAllowed(v) && !sp.Environment.EnvAllowed(v) {
					t.Fatalf("env %s broader", v)
				}
			}
			for _, c := range genCmds {
				if !slices.Contains(rp.DeniedCommands, c) && slices.Contains(sp.DeniedCommands, c) {
					t.Fatalf("denied command %s lost", c)
				}
				runnable := func(p ProcessPolicy) bool {
					return p.ShellEnabled && !slices.Contains(p.DeniedCommands, c) && (len(p.AllowedCommandFamilies) == 0 || slices.Contains(p.AllowedCommandFamilies, c))
				}
				if runnable(rp) && !runnable(sp) {
					t.Fatalf("command %s runnable in the result only", c)
				}
			}
			if r.Tmp == TmpHost && side.Tmp == TmpIsolated || r.Requirement == BackendOptional && side.Requirement == BackendRequired {
				t.Fatal("tmp or backend requirement broader")
			}
		}
	})
}

func TestCapBroaderThanParentIsRefused(t *testing.T) {
	parent := testSnapshot(t, ModeSupervised)
	cases := []struct {
		cap  TaskCap
		dims []string
	}{
		{TaskCap{Mode: ModeFullAccess}, []string{"profile"}},
		{TaskCap{SandboxMode: SandboxWorkspaceWrite}, []string{"sandbox mode"}},
		{TaskCap{Network: &NetworkPolicy{Mode: NetworkEnabled}}, []string{"network policy"}},
		{TaskCap{Process: &ProcessPolicy{ShellEnabled: true, InheritStdin: true, Environment: EnvironmentPolicy{Inherit: true}}}, []string{"process policy"}},
		{TaskCap{FilesystemRoots: []CapRoot{{Path: "/elsewhere", Access: AccessRead}}}, []string{"filesystem roots"}},
		{TaskCap{Mode: ModeAutoAcceptEdits, SandboxMode: SandboxUnrestricted, FilesystemRoots: []CapRoot{{Path: "/work/repo", Access: AccessWrite}}},
			[]string{"profile", "sandbox mode", "filesystem roots"}},
	}
	for _, c := range cases {
		_, err := ResolveChildSnapshot(ChildInputs{Cap: &c.cap, Parent: &parent, ParentTurnID: "p1"})
		var ce *CapExceedsParentError
		if !errors.As(err, &ce) || !slices.Equal(ce.Dimensions, c.dims) {
			t.Errorf("cap %+v: got %v, want dims %v", c.cap, err, c.dims)
		}
	}
	ok := TaskCap{Mode: ModeSupervised, Network: &NetworkPolicy{Mode: NetworkDisabled},
		FilesystemRoots: []CapRoot{{Path: "/work/repo/src", Access: AccessRead}}}
	child, err := ResolveChildSnapshot(ChildInputs{Cap: &ok, Parent: &parent, ParentTurnID: "p1"})
	if err != nil {
		t.Fatalf("narrower cap refused: %v", err)
	}
	if child.PermissionProfile.Source != SourceTaskPermissionCap || child.ParentCap == nil || child.ParentCap.ParentTurnID != "p1" {
		t.Fatalf("child source/parent_cap: %+v %+v", child.PermissionProfile.Source, child.ParentCap)
	}
}

func TestChildWithoutCapInheritsAndNeverWidens(t *testing.T) {
	parent := testSnapshot(t, ModeAutoAcceptEdits)
	child, err := ResolveChildSnapshot(ChildInputs{Requested: &ProfileRequest{Mode: ModeFullAccess}, Parent: &parent, ParentTurnID: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if child.PermissionProfile.Mode != ModeAutoAcceptEdits || child.PermissionProfile.Source != SourceInheritedFromParentTurn {
		t.Fatalf("child widened: %s/%s", child.PermissionProfile.Mode, child.PermissionProfile.Source)
	}
	if child.Sandbox.Mode != SandboxWorkspaceWrite || child.Network.Mode != NetworkDisabled || child.Enforcement.Status != EnforcementActive {
		t.Fatalf("child snapshot: %+v %+v %+v", child.Sandbox.Mode, child.Network.Mode, child.Enforcement)
	}
}

func TestDomainRuleCovers(t *testing.T) {
	cases := []struct {
		x, y string
		want bool
	}{
		{"example.com", "example.com", true}, {"example.com", "api.example.com", true}, {"example.com", "badexample.com", false},
		{"example.com", "=https://example.com:8443", true}, {"=example.com", "api.example.com", false},
		{"=example.com", "=https://example.com", true}, {"=https://example.com", "=https://example.com:443/", true},
		{"=https://example.com", "=https://example.com:8443", false}, {"=http://example.com", "=https://example.com", false},
		{"=https://[::1]", "=https://[::1]:443", true}, {"=https://[::1]:8443", "=https://[::1]", false},
		{"*.example.com", "api.example.com", true}, {"*.example.com", "example.com", false}, {"*.example.com", "=https://example.com", false},
		{"example.com", "*.example.com", true}, {"*.example.com", "x.api.example.com", true}, {"EXAMPLE.com.", "Api.Example.COM", true},
	}
	for _, c := range cases {
		if got := DomainRuleCovers(c.x, c.y); got != c.want {
			t.Errorf("DomainRuleCovers(%q, %q) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
}

// TestIntersectKeepsDenies: whatever the two sides, every deny entry of
// either side is in the intersection, and the result denies there.
func TestIntersectKeepsDenies(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := genBounds(t, "a"), genBounds(t, "b")
		r := Intersect(a, b)
		for _, side := range []Bounds{a, b} {
			for _, d := range side.Filesystem.Entries {
				if d.Access != AccessDeny {
					continue
				}
				if !slices.ContainsFunc(r.Filesystem.Entries, func(e FilesystemEntry) bool {
					return e.ResolvedPath == d.ResolvedPath && e.Access == AccessDeny
				}) {
					t.Fatalf("deny %s dropped:\n side=%+v\n r=%+v", d.ResolvedPath, side.Filesystem.Entries, r.Filesystem.Entries)
				}
				if got := effectiveAccess(r.Filesystem, d.ResolvedPath+"/x"); got != AccessDeny && effectiveAccess(side.Filesystem, d.ResolvedPath+"/x") == AccessDeny {
					t.Fatalf("%s/x: %s in the result, deny on the side", d.ResolvedPath, got)
				}
			}
		}
	})
}

// TestCapDenySubtreeSurvives is the three-level case of issue 9 item 8: under
// a full_access parent, a cap with root write, root/blocked deny and
// root/blocked/allowed write keeps the deny; blocked is denied, allowed and
// the rest of the root are writable.
func TestCapDenySubtreeSurvives(t *testing.T) {
	parent := testSnapshot(t, ModeFullAccess)
	root := workspaceRootOf(&parent)
	cap := TaskCap{FilesystemRoots: []CapRoot{
		{Path: root, Access: AccessWrite}, {Path: root + "/blocked", Access: AccessDeny}, {Path: root + "/blocked/allowed", Access: AccessWrite},
	}}
	for _, mode := range []Mode{ModeFullAccess, ModeAutoAcceptEdits} {
		child, err := ResolveChildSnapshot(ChildInputs{Requested: &ProfileRequest{Mode: mode}, Cap: &cap, Parent: &parent, ParentTurnID: "p"})
		if err != nil {
			t.Fatal(err)
		}
		fs := child.Sandbox.Filesystem
		if !slices.ContainsFunc(fs.Entries, func(e FilesystemEntry) bool {
			return e.ResolvedPath == root+"/blocked" && e.Access == AccessDeny && e.Provenance == ProvenanceTaskCap
		}) {
			t.Fatalf("%s: the deny entry was dropped: %+v", mode, fs.Entries)
		}
		for p, want := range map[string]Access{root + "/a.go": AccessWrite, root + "/blocked": AccessDeny, root + "/blocked/x": AccessDeny,
			root + "/blocked/allowed": AccessWrite, root + "/blocked/allowed/y": AccessWrite} {
			if got := AccessAt(&fs, p); got != want {
				t.Errorf("%s: %s is %s, want %s", mode, p, got, want)
			}
		}
	}
}

// TestCapOnlyDenies: a cap whose filesystem roots are all deny entries
// bounds no roots: the child keeps the parent's roots minus the denied
// subtree (it is not left with nothing, nor refused as broader).
func TestCapOnlyDenies(t *testing.T) {
	parent := testSnapshot(t, ModeAutoAcceptEdits)
	root := workspaceRootOf(&parent)
	cap := TaskCap{FilesystemRoots: []CapRoot{{Path: root + "/secret", Access: AccessDeny}}}
	child, err := ResolveChildSnapshot(ChildInputs{Cap: &cap, Parent: &parent, ParentTurnID: "p"})
	if err != nil {
		t.Fatal(err)
	}
	fs := child.Sandbox.Filesystem
	for p, want := range map[string]Access{root + "/a.go": AccessWrite, root + "/secret/k": AccessDeny, "/usr/bin/sh": AccessRead} {
		if got := AccessAt(&fs, p); got != want {
			t.Errorf("%s: %s, want %s (%+v)", p, got, want, fs.Entries)
		}
	}
}
