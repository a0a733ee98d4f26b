package domain

import (
	"path"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// modeAccess is what a snapshot's entries grant a path: AccessAt, the one
// definition the decision-time checker and the kernel plan follow.
func modeAccess(s *TurnExecutionSecuritySnapshot, p string) Access {
	return AccessAt(&s.Sandbox.Filesystem, p)
}

// TestBuiltinsEqualModes: each built-in compiles to the same effect as its
// mode's resolved snapshot — file access on probe paths, network on/off,
// environment, denied commands, timeout cap and the behaviour table.
func TestBuiltinsEqualModes(t *testing.T) {
	probes := []string{
		"/work/repo", "/work/repo/main.go", "/work/repo/.git/config", "/work/repo/.agents/x", "/work/repo/.codex",
		"/work/repo/service/a", "/work/shared-lib/lib.go", "/work/shared-lib/.git/HEAD", "/opt/toolchain/bin/go",
		"/usr/bin/env", "/etc/passwd", "/proc/self/status", "/dev/null", "/dev/tty", "/dev/sda", "/home/dev/.ssh/id_rsa",
		"/tmp/x", "/", "/work", "/work/other", "/opt/other",
	}
	environ := []string{"PATH=/bin", "HOME=/home/dev", "GITHUB_TOKEN=t", "MY_SECRET=s", "AWS_ACCESS_KEY_ID=a", "DATABASE_URL=d",
		"XDG_CONFIG_HOME=/x", "SSH_AUTH_SOCK=/s", "FOO=bar", "LANG=C", "OPENAI_API_KEY=k", "COOKIE_JAR=c", "PASSWORD_FILE=p",
		"AUTHOR=me", "GOPATH=/go", "credential_helper=x"}
	for name, mode := range BuiltinModes {
		in := goldenInputs(mode)
		snap, err := ResolveSnapshot(in)
		if err != nil {
			t.Fatal(err)
		}
		env := ProfileEnv{Cwd: in.Cwd, WorkspaceRoot: in.WorkspaceRoot, ProjectRoots: in.ProjectRoots, AppReadRoots: in.AppReadRoots}
		cp, err := CompileProfile(nil, name, env, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range probes {
			if got, want := cp.Explain(p).Access, modeAccess(&snap, p); got != want {
				t.Errorf("%s %s: profile %s, mode %s %s", name, p, got, mode, want)
			}
		}
		if cp.Unrestricted != snap.Sandbox.Filesystem.Unrestricted {
			t.Errorf("%s: unrestricted %v, mode %v", name, cp.Unrestricted, snap.Sandbox.Filesystem.Unrestricted)
		}
		if cp.Network.Enabled != (snap.Network.Mode == NetworkEnabled) || cp.Network.AllowLocalhost != snap.Network.AllowLocalhost ||
			cp.Network.AllowPrivateNetworks != snap.Network.AllowPrivateNetworks || (len(cp.Network.UnixSockets) > 0) != snap.Network.AllowUnixSockets {
			t.Errorf("%s: network %+v, mode %+v", name, cp.Network, snap.Network)
		}
		if got, want := cp.Environment.Apply(environ), snap.Process.Environment.FilterEnv(environ); !slices.Equal(got, want) {
			t.Errorf("%s: environment\n got %v\nwant %v", name, got, want)
		}
		if !slices.Equal(cp.Process.DeniedCommands, sortedUnique(snap.Process.DeniedCommands)) || cp.Process.TimeoutCapMs != snap.Process.MaxDurationMs {
			t.Errorf("%s: process %+v, mode %+v", name, cp.Process, snap.Process)
		}
		if !cp.Policy.equalTable(CompilePolicy(mode)) {
			t.Errorf("%s: policy %+v", name, cp.Policy)
		}
	}
}

func TestAutoRejectTurnsAskIntoDeny(t *testing.T) {
	set := ProfileSet{"strict": {Name: "strict", Extends: BuiltinWorkspace, Approvals: ProfileApprovals{AutoReject: []ActionKind{ActionShellCommand, ActionFileWrite}}}}
	cp, err := CompileProfile(set, "strict", ProfileEnv{Cwd: "/w"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// shell_command asks under auto_accept_edits: auto-rejected → deny.
	// file_write is already allowed there: no prompt to reject, stays allow.
	if cp.Policy.ShellCommand != BehaviorDeny || cp.Policy.FileWrite != BehaviorAllow || cp.Policy.Network != BehaviorAsk {
		t.Fatalf("policy %+v", cp.Policy)
	}
	// Control: the parent alone asks.
	parent, _ := CompileProfile(set, BuiltinWorkspace, ProfileEnv{Cwd: "/w"}, nil)
	if parent.Policy.ShellCommand != BehaviorAsk {
		t.Fatalf("parent policy %+v", parent.Policy)
	}
}

func TestDeniedCommandsAccumulateOverExtends(t *testing.T) {
	set := ProfileSet{"p": {Name: "p", Extends: BuiltinReadOnly, Process: ProfileProcess{DeniedCommands: []string{"curl"}}}}
	cp, err := CompileProfile(set, "p", ProfileEnv{Cwd: "/w"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(cp.Process.DeniedCommands, "curl") || !slices.Contains(cp.Process.DeniedCommands, "sudo") {
		t.Fatalf("denied commands %v", cp.Process.DeniedCommands)
	}
}

func TestEnvironmentOrder(t *testing.T) {
	e := CompiledEnvironment{Inherit: InheritAll, Exclude: []string{"*KEY*"}, Set: map[string]string{"API_KEY": "set", "MODE": "ci"}, IncludeOnly: []string{"API_*", "PATH", "MODE"}, IncludeOnlySet: true}
	got := e.Apply([]string{"PATH=/bin", "API_KEY=leak", "api_key2=leak", "HOME=/h", "SSH_AUTH_SOCK=/s", "MODE=old"})
	// inherit all → exclude drops API_KEY, api_key2 → set adds API_KEY, MODE
	// (replacing the inherited MODE) → include_only keeps PATH, API_*, MODE.
	if want := []string{"PATH=/bin", "API_KEY=set", "MODE=ci"}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	none := CompiledEnvironment{Inherit: InheritNone, Exclude: DefaultEnvExclude}
	if got := none.Apply([]string{"PATH=/bin"}); len(got) != 0 {
		t.Fatalf("inherit none kept %v", got)
	}
}

// TestLockedDenyCannotBeReopened: an operator's required deny wins over a
// more specific rule of the profile; the same rule without the lock loses.
func TestLockedDenyCannotBeReopened(t *testing.T) {
	set := ProfileSet{"p": {Name: "p", Filesystem: map[string]Access{"/srv": AccessWrite, "/srv/secrets/public": AccessWrite}}}
	env := ProfileEnv{Cwd: "/srv"}
	cons := &Constraints{RequiredDeny: []string{"/srv/secrets"}}
	cp, err := CompileProfile(set, "p", env, cons)
	if err != nil {
		t.Fatal(err)
	}
	if d := cp.Explain("/srv/secrets/public/x"); d.Access != AccessDeny || d.Rule == nil || !d.Rule.Locked {
		t.Fatalf("reopened inside a required deny: %+v", d)
	}
	if d := cp.Explain("/srv/other"); d.Access != AccessWrite {
		t.Fatalf("control: %+v", d)
	}
	set["p"].Filesystem["/srv/secrets"] = AccessDeny
	plain, _ := CompileProfile(set, "p", env, nil)
	if d := plain.Explain("/srv/secrets/public/x"); d.Access != AccessWrite {
		t.Fatalf("control: an unlocked deny is reopened by a more specific rule: %+v", d)
	}
}

func TestConstraintsRefuseOutsideTheList(t *testing.T) {
	cons := &Constraints{AllowedProfiles: []string{":read-only", "dev"}}
	set := ProfileSet{"dev": {Name: "dev", Extends: BuiltinWorkspace}, "wide": {Name: "wide", Extends: BuiltinDangerFullAccess}}
	_, err := CompileProfile(set, "wide", ProfileEnv{Cwd: "/w"}, cons)
	if err == nil || !strings.Contains(err.Error(), "allowed_profiles: :read-only, dev") {
		t.Fatalf("got %v", err)
	}
	// A built-in outside the list is refused too.
	if _, err := CompileProfile(set, BuiltinDangerFullAccess, ProfileEnv{Cwd: "/w"}, cons); err == nil {
		t.Fatal(":danger-full-access accepted outside the list")
	}
	if _, err := CompileProfile(set, "dev", ProfileEnv{Cwd: "/w"}, cons); err != nil {
		t.Fatalf("control: %v", err)
	}
}

// --- property: resolution never grants more than the most specific rule ---

var propComps = []string{"a", "b", "c", ".env"}

func genRule(t *rapid.T, i int) PathRule {
	n := rapid.IntRange(0, 4).Draw(t, "depth")
	glob := rapid.Bool().Draw(t, "glob")
	var parts []string
	for j := 0; j < n; j++ {
		if glob {
			parts = append(parts, rapid.SampledFrom([]string{"a", "b", "*", "**", "?", "*.env", "[ab]"}).Draw(t, "gc"))
		} else {
			parts = append(parts, rapid.SampledFrom(propComps).Draw(t, "c"))
		}
	}
	p := "/" + strings.Join(parts, "/")
	access := AccessDeny
	if !glob {
		access = rapid.SampledFrom([]Access{AccessRead, AccessWrite, AccessDeny}).Draw(t, "access")
	}
	return PathRule{Key: p, Pattern: p, Glob: glob && hasGlob(p), Access: access, Origin: string(rune('A' + i))}
}

func genPath(t *rapid.T) string {
	n := rapid.IntRange(0, 5).Draw(t, "pdepth")
	var parts []string
	for j := 0; j < n; j++ {
		parts = append(parts, rapid.SampledFrom(propComps).Draw(t, "pc"))
	}
	return "/" + strings.Join(parts, "/")
}

// refMatch is an independent, recursive glob matcher for the oracle.
func refMatch(pat, comps []string) bool {
	if len(pat) == 0 {
		return len(comps) == 0
	}
	if pat[0] == "**" {
		for k := 0; k <= len(comps); k++ {
			if refMatch(pat[1:], comps[k:]) {
				return true
			}
		}
		return false
	}
	if len(comps) == 0 {
		return false
	}
	ok, _ := path.Match(pat[0], comps[0])
	return ok && refMatch(pat[1:], comps[1:])
}

// refSpec is the oracle's specificity: the longest prefix of the path the
// rule names (-1: no match).
func refSpec(r PathRule, p string) int {
	comps := splitComps(p)
	best := -1
	for k := 0; k <= len(comps); k++ {
		prefix := "/" + strings.Join(comps[:k], "/")
		if r.Glob {
			if refMatch(splitComps(r.Pattern), comps[:k]) {
				best = k
			}
		} else if CleanPath(r.Pattern) == CleanPath(prefix) {
			best = k
		}
	}
	return best
}

func grant(a Access) int { return map[Access]int{AccessDeny: 0, AccessRead: 1, AccessWrite: 2}[a] }

func TestPropertyMostSpecificRuleBounds(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 8).Draw(t, "n")
		var rules []PathRule
		for i := 0; i < n; i++ {
			rules = append(rules, genRule(t, i))
		}
		p := genPath(t)
		d := ResolvePathRules(rules, p)
		maxSpec := -1
		for _, r := range rules {
			maxSpec = max(maxSpec, refSpec(r, p))
		}
		if maxSpec < 0 {
			if d.Access != AccessDeny || d.Rule != nil {
				t.Fatalf("no rule matches %s but got %+v", p, d)
			}
			return
		}
		// The decision never grants more than any rule at the top
		// specificity allows once ties are broken (deny > overlay > write > read):
		// it equals the strongest tie rank among them.
		var top []Access
		var topRules []*PathRule
		for i, r := range rules {
			if refSpec(r, p) == maxSpec {
				top = append(top, r.Access)
				topRules = append(topRules, &rules[i])
			}
		}
		want := topRules[0]
		for _, r := range topRules {
			if tieRank(r) > tieRank(want) {
				want = r
			}
		}
		if d.Access != want.Access || d.Specificity != maxSpec || d.Rule == nil || d.Rule.Access != want.Access {
			t.Fatalf("%s: got %+v (spec %d), want %s at specificity %d among %v", p, d, d.Specificity, want.Access, maxSpec, top)
		}
		if slices.Contains(top, AccessDeny) && d.Access != AccessDeny {
			t.Fatalf("%s: a deny at the top specificity lost: %+v", p, d)
		}
		// Adding a deny rule anywhere never widens this path.
		extra := genRule(t, n)
		extra.Access = AccessDeny
		if after := ResolvePathRules(append(slices.Clone(rules), extra), p); grant(after.Access) > grant(d.Access) {
			t.Fatalf("%s: adding deny %s widened %s → %s", p, extra.Pattern, d.Access, after.Access)
		}
	})
}

// TestBuiltinSnapshotsEqualModeSnapshots: a turn selecting a built-in gets
// the snapshot of its mode — same sandbox mode, tmp, backend requirement,
// network, process limits, approval scopes, enforcement and behaviour table,
// and the same access for every probe path — plus the profile's name.
func TestBuiltinSnapshotsEqualModeSnapshots(t *testing.T) {
	probes := []string{"/work/repo/a", "/work/repo/.git/x", "/work/repo/.git/config", "/work/repo/.bashrc", "/work/shared-lib/b", "/opt/toolchain/c",
		"/usr/lib/d", "/dev/null", "/etc/hosts", "/etc/shadow", "/proc/1/environ", "/root/e", "/root/.ssh/id_rsa", "/home/u/.aws/credentials", "/"}
	for name, mode := range BuiltinModes {
		for _, kernel := range []KernelFeatures{{LandlockABI: 7, Seccomp: true, UserNamespaces: true}, {}} {
			in := goldenInputs(mode)
			in.Kernel = kernel
			want, err := ResolveSnapshot(in)
			if err != nil {
				t.Fatal(err)
			}
			env := ProfileEnv{Cwd: in.Cwd, WorkspaceRoot: in.WorkspaceRoot, ProjectRoots: in.ProjectRoots, AppReadRoots: in.AppReadRoots}
			cp, err := CompileProfile(nil, name, env, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ResolveProfileSnapshot(cp, SourceComposer, in)
			if err != nil {
				t.Fatal(err)
			}
			if got.PermissionProfile.Profile != name || got.PermissionProfile.Mode != mode || !got.PermissionProfile.EffectivePolicy.equalTable(want.PermissionProfile.EffectivePolicy) {
				t.Errorf("%s: profile %+v", name, got.PermissionProfile)
			}
			g, w := got.Sandbox, want.Sandbox
			if g.Mode != w.Mode || g.Tmp != w.Tmp || g.BackendRequirement != w.BackendRequirement || g.Cwd != w.Cwd || g.Filesystem.Unrestricted != w.Filesystem.Unrestricted {
				t.Errorf("%s: sandbox %+v, mode %+v", name, g, w)
			}
			for _, p := range probes {
				if a, b := modeAccess(&got, p), modeAccess(&want, p); a != b {
					t.Errorf("%s %s: entries give %s, mode %s", name, p, a, b)
				}
				if !got.Sandbox.Filesystem.Unrestricted {
					if a := ResolvePathRules(got.Sandbox.Filesystem.Rules, p).Access; a != modeAccess(&want, p) {
						t.Errorf("%s %s: rules give %s", name, p, a)
					}
				}
			}
			if got.Network.Mode != want.Network.Mode || got.Network.AllowLocalhost != want.Network.AllowLocalhost ||
				got.Network.AllowPrivateNetworks != want.Network.AllowPrivateNetworks || got.Network.AllowUnixSockets != want.Network.AllowUnixSockets {
				t.Errorf("%s: network %+v, mode %+v", name, got.Network, want.Network)
			}
			gp, wp := got.Process, want.Process
			gp.Environment.Profile = nil
			if gp.MaxDurationMs != wp.MaxDurationMs || gp.DefaultTimeoutMs != wp.DefaultTimeoutMs || gp.InheritStdin != wp.InheritStdin ||
				gp.InheritSession != wp.InheritSession || !slices.Equal(gp.DeniedCommands, sortedUnique(wp.DeniedCommands)) ||
				gp.Environment.Inherit != wp.Environment.Inherit || !slices.Equal(gp.Environment.DeniedPatterns, wp.Environment.DeniedPatterns) {
				t.Errorf("%s: process %+v, mode %+v", name, gp, wp)
			}
			if got.Enforcement.Status != want.Enforcement.Status || len(got.Enforcement.Degradations) != len(want.Enforcement.Degradations) {
				t.Errorf("%s %+v: enforcement %+v, mode %+v", name, kernel, got.Enforcement, want.Enforcement)
			}
		}
	}
}

// TestProfileSnapshotReportsWhatTheKernelCannotEnforce: globs and domain
// rules are degradations, so a required backend refuses to spawn; the same
// profile without them is active.
func TestProfileSnapshotReportsWhatTheKernelCannotEnforce(t *testing.T) {
	on := true
	set := ProfileSet{
		"globs":  {Name: "globs", Extends: BuiltinWorkspace, Filesystem: map[string]Access{"**/*.env": AccessDeny, "/work/repo/secret": AccessDeny}},
		"plain":  {Name: "plain", Extends: BuiltinWorkspace, Filesystem: map[string]Access{"/work/repo/secret": AccessDeny}},
		"egress": {Name: "egress", Extends: BuiltinWorkspace, Network: ProfileNetwork{Enabled: &on, Domains: map[string]DomainAccess{"pypi.org": DomainAllow, "**.github.com": DomainAllow, "x.github.com": DomainDeny}}},
	}
	in := goldenInputs(ModeAutoAcceptEdits)
	env := ProfileEnv{Cwd: in.Cwd, WorkspaceRoot: in.WorkspaceRoot}
	snap := func(name string) TurnExecutionSecuritySnapshot { return profileSnapshot(t, set, name, env, in) }
	g := snap("globs")
	if !g.CanSpawn() || g.Enforcement.Status != EnforcementPartiallyActive || g.Enforcement.Degradations[0].Dimension != "filesystem" ||
		!g.Enforcement.Degradations[0].Residual || !strings.Contains(g.Enforcement.Degradations[0].Reason, "**/*.env") ||
		!strings.Contains(g.Enforcement.Degradations[0].Reason, "after the spawn") || g.Sandbox.Filesystem.GlobScanMaxDepth != DefaultGlobScanMaxDepth {
		t.Fatalf("globs (the kernel masks existing matches; later files stay a named degradation): %+v", g.Enforcement)
	}
	// Without user namespaces nothing masks the matches: the snapshot
	// refuses to spawn under its required backend.
	noNS := in
	noNS.Kernel.UserNamespaces = false
	cpg, err := CompileProfile(set, "globs", env, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := ResolveProfileSnapshot(cpg, SourceComposer, noNS); s.CanSpawn() || s.Enforcement.Degradations[0].Residual {
		t.Fatalf("globs without user namespaces: %+v", s.Enforcement)
	}
	for _, e := range g.Sandbox.Filesystem.Entries {
		// Sensitive patterns (/proc/*/environ) are entries for the
		// decision checker; the sandbox never hands a pattern to the
		// kernel (sandbox.kernelMasks).
		if hasGlob(e.Path) && e.Kind != PathSensitive {
			t.Fatalf("a glob reached the kernel's entries: %+v", e)
		}
	}
	if d := ResolvePathRules(g.Sandbox.Filesystem.Rules, "/work/repo/a/.env"); d.Access != AccessDeny {
		t.Fatalf("the decision rules lost the glob: %+v", d)
	}
	p := snap("plain")
	if !p.CanSpawn() || p.Enforcement.Status != EnforcementActive {
		t.Fatalf("control without globs: %+v", p.Enforcement)
	}
	var denied bool
	for _, e := range p.Sandbox.Filesystem.Entries {
		denied = denied || (e.ResolvedPath == "/work/repo/secret" && e.Access == AccessDeny && e.Provenance == ProvenanceProfile && e.Origin == "plain")
	}
	if !denied {
		t.Fatalf("the deny rule is not an entry: %+v", p.Sandbox.Filesystem.Entries)
	}
	set["sock"] = &Profile{Name: "sock", Extends: BuiltinWorkspace, Network: ProfileNetwork{UnixSockets: map[string]bool{"/run/docker.sock": true}}}
	if k := snap("sock"); k.CanSpawn() || !strings.Contains(k.Enforcement.Degradations[0].Reason, "/run/docker.sock") {
		t.Fatalf("a unix-socket allow-list the kernel cannot hold: %+v", k.Enforcement)
	}
	set["open"] = &Profile{Name: "open", Extends: BuiltinWorkspace, Network: ProfileNetwork{Enabled: &on}}
	if o := snap("open"); o.CanSpawn() || !strings.Contains(o.Enforcement.Degradations[0].Reason, "private") {
		t.Fatalf("an enabled network whose private ranges only decisions refuse: %+v", o.Enforcement)
	}
	set["full"] = &Profile{Name: "full", Extends: BuiltinDangerFullAccess}
	if f := snap("full"); !f.CanSpawn() || f.Enforcement.Status != EnforcementActive {
		t.Fatalf("control, :danger-full-access: %+v", f.Enforcement)
	}
	n := snap("egress")
	if n.CanSpawn() || n.Network.Mode != NetworkRestricted || !slices.Equal(n.Network.AllowedDomains, []string{"**.github.com", "=pypi.org"}) ||
		!slices.Equal(n.Network.DeniedDomains, []string{"=x.github.com"}) {
		t.Fatalf("egress: %+v %+v", n.Network, n.Enforcement)
	}
}

// FuzzFilesystemKeyAndPath: any key and path parse or fail cleanly; a
// parsed deny key compiled next to ":root" = write denies every path one of
// its rules matches (by the oracle's matcher) and nothing else.
func FuzzFilesystemKeyAndPath(f *testing.F) {
	for _, s := range [][2]string{{"**/*.env", "/w/a/.env"}, {":workspace_roots/a/**", "/w/a/b"}, {"~/.ssh", "/h/.ssh/k"}, {"/x/[a-", "/x/a"}, {":root", "/"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, key, p string) {
		fk, err := ParseFilesystemKey(key, AccessDeny)
		if err != nil {
			return
		}
		if fk.Key == TokenRoot {
			return
		}
		set := ProfileSet{"f": {Name: "f", Filesystem: map[string]Access{key: AccessDeny, TokenRoot: AccessWrite}}}
		cp, err := CompileProfile(set, "f", ProfileEnv{Home: "/h", Cwd: "/w", TmpDir: "/t"}, nil)
		if err != nil {
			t.Fatalf("%q parsed as %+v but does not compile: %v", key, fk, err)
		}
		d := cp.Explain(p)
		matched := false
		for _, r := range cp.Rules {
			matched = matched || (r.Key == fk.Key && refSpec(r, d.Path) >= 0)
		}
		if matched != (d.Access == AccessDeny) {
			t.Fatalf("%q on %q: matched %v, decision %s by %+v", key, d.Path, matched, d.Access, d.Rule)
		}
	})
}

// TestProfileDomainRulesWithTheEgressProxy: a restricted network (domain
// rules) is a degradation without the egress proxy and enforced with it; an
// allow-list holding "*" (unrestricted egress, commands not proxied) stays
// a degradation either way.
func TestProfileDomainRulesWithTheEgressProxy(t *testing.T) {
	on := true
	set := ProfileSet{
		"egress": {Name: "egress", Extends: BuiltinWorkspace, Network: ProfileNetwork{Enabled: &on, Domains: map[string]DomainAccess{"pypi.org": DomainAllow}}},
		"star":   {Name: "star", Extends: BuiltinWorkspace, Network: ProfileNetwork{Enabled: &on, Domains: map[string]DomainAccess{"*": DomainAllow}}},
	}
	for _, proxy := range []bool{false, true} {
		in := goldenInputs(ModeAutoAcceptEdits)
		in.Kernel.EgressProxy = proxy
		env := ProfileEnv{Cwd: in.Cwd, WorkspaceRoot: in.WorkspaceRoot}
		for name, wantSpawn := range map[string]bool{"egress": proxy, "star": false} {
			cp, err := CompileProfile(set, name, env, nil)
			if err != nil {
				t.Fatal(err)
			}
			s, err := ResolveProfileSnapshot(cp, SourceComposer, in)
			if err != nil {
				t.Fatal(err)
			}
			if s.CanSpawn() != wantSpawn {
				t.Errorf("%s with egress proxy %v: can spawn %v, want %v (%+v)", name, proxy, s.CanSpawn(), wantSpawn, s.Enforcement)
			}
		}
	}
}

// TestOverlayCompilesToReadWithOverlay: a profile's "overlay" rule
// compiles to a read rule and a read entry marked Overlay (decisions,
// which judge what the runtime does on the host, see read; the sandbox
// mounts the overlay), is not made a read-only carve-out inside a writable
// root, is refused with a glob, :root and :minimal, and is named (not
// blocking) where no mount namespace can be made. Control: the same key
// with "write" compiles to a write rule and entry without the mark.
func TestOverlayCompilesToReadWithOverlay(t *testing.T) {
	set := ProfileSet{
		"ov": {Name: "ov", Extends: BuiltinWorkspace, Filesystem: map[string]Access{"~/.cache/go-build": AccessOverlay, ":workspace_roots/vendor": AccessOverlay}},
		"wr": {Name: "wr", Extends: BuiltinWorkspace, Filesystem: map[string]Access{"~/.cache/go-build": AccessWrite}},
	}
	in := goldenInputs(ModeAutoAcceptEdits)
	env := ProfileEnv{Cwd: in.Cwd, WorkspaceRoot: in.WorkspaceRoot, Home: "/home/dev"}
	snap := func(name string, in SnapshotInputs) TurnExecutionSecuritySnapshot {
		return profileSnapshot(t, set, name, env, in)
	}
	entry := func(s *TurnExecutionSecuritySnapshot, p string) *FilesystemEntry {
		for i, e := range s.Sandbox.Filesystem.Entries {
			if e.Path == p && !e.IsCarve() {
				return &s.Sandbox.Filesystem.Entries[i]
			}
		}
		return nil
	}
	ov := snap("ov", in)
	cache, vendor := "/home/dev/.cache/go-build", CleanPath(in.WorkspaceRoot+"/vendor")
	for _, p := range []string{cache, vendor} {
		e := entry(&ov, p)
		if e == nil || e.Access != AccessRead || !e.Overlay {
			t.Fatalf("%s: want a read entry marked overlay, got %+v", p, e)
		}
		if d := ResolvePathRules(ov.Sandbox.Filesystem.Rules, p+"/x"); d.Access != AccessRead || !d.Rule.Overlay {
			t.Fatalf("%s: decisions see %+v, want read by the overlay rule", p, d)
		}
	}
	// Inside a writable root the overlay's directory is a read-only
	// carve-out too (pinned, held when missing, a file read-only: the
	// thirty-first review); outside one it needs none.
	carve := func(p string) bool {
		return slices.ContainsFunc(ov.Sandbox.Filesystem.Entries, func(e FilesystemEntry) bool {
			return e.Path == p && e.Kind == PathProtected && e.Access == AccessRead
		})
	}
	if !carve(vendor) || carve(cache) {
		t.Fatalf("read-only carve-outs: vendor %v (want true), the cache %v (want false)", carve(vendor), carve(cache))
	}
	if ov.Enforcement.Status != EnforcementActive {
		t.Fatalf("with namespaces an overlay needs no degradation: %+v", ov.Enforcement)
	}
	noNS := in
	noNS.Kernel.UserNamespaces = false
	if d := snap("ov", noNS).Enforcement.Degradations; !slices.ContainsFunc(d, func(d Degradation) bool {
		return d.Residual && strings.Contains(d.Reason, "~/.cache/go-build") && strings.Contains(d.Reason, "read-only")
	}) {
		t.Fatalf("without namespaces the overlay's read-only fallback is not named: %+v", d)
	}
	wr := snap("wr", in)
	if e := entry(&wr, cache); e == nil || e.Access != AccessWrite || e.Overlay {
		t.Fatalf("control: write compiles to a write entry, got %+v", e)
	}
	for _, k := range []string{"**/cache", ":root", ":minimal"} {
		bad := ProfileSet{"b": {Name: "b", Extends: BuiltinWorkspace, Filesystem: map[string]Access{k: AccessOverlay}}}
		if _, err := CompileProfile(bad, "b", env, nil); err == nil {
			t.Errorf("%s = overlay was accepted", k)
		}
	}
	if _, err := ParseProfileAccess("overlay"); err != nil {
		t.Fatal(err)
	}
}

// profileSnapshot compiles the profile name of set and resolves its
// snapshot with in.
func profileSnapshot(t *testing.T, set ProfileSet, name string, env ProfileEnv, in SnapshotInputs) TurnExecutionSecuritySnapshot {
	t.Helper()
	cp, err := CompileProfile(set, name, env, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ResolveProfileSnapshot(cp, SourceComposer, in)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestProxyDegradationSaysWhy: a block-list network (an allow-list with
// "*") is not carried by the egress proxy; the degradation says the proxy
// runs but does not carry it, not that it is missing; without the proxy
// it says that (the twenty-ninth review's note).
func TestProxyDegradationSaysWhy(t *testing.T) {
	on := true
	set := ProfileSet{"bl": {Name: "bl", Extends: BuiltinWorkspace, Network: ProfileNetwork{Enabled: &on,
		Domains: map[string]DomainAccess{"*": DomainAllow, "evil.example": DomainDeny}}}}
	in := goldenInputs(ModeAutoAcceptEdits)
	env := ProfileEnv{Cwd: in.Cwd, WorkspaceRoot: in.WorkspaceRoot}
	reason := func(egress bool) string {
		in := in
		in.Kernel.EgressProxy = egress
		for _, d := range profileSnapshot(t, set, "bl", env, in).Enforcement.Degradations {
			if d.Dimension == "network" {
				return d.Reason
			}
		}
		return ""
	}
	if r := reason(true); strings.Contains(r, "not available") || !strings.Contains(r, `without "*"`) {
		t.Errorf("with the proxy running: %q", r)
	}
	if r := reason(false); !strings.Contains(r, "not available") {
		t.Errorf("without the proxy: %q", r)
	}
}
