package domain

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestSelectSnapshot(t *testing.T) {
	in := goldenInputs(ModeSupervised)
	in.Profile = TurnPermissionProfileSnapshot{}
	cat := &ProfileCatalog{Profiles: ProfileSet{"dev": {Name: "dev", Extends: BuiltinWorkspace, Filesystem: map[string]Access{"/work/repo/secret": AccessDeny}}}}

	var fe *FieldError
	_, err := SelectSnapshot(&ProfileRequest{Mode: ModeSupervised, Profile: "dev"}, cat, SourceComposer, in)
	if !errors.As(err, &fe) || fe.Field != "permission_profile" || !strings.Contains(err.Error(), "not both") {
		t.Fatalf("mode and profile: %v", err)
	}
	s, err := SelectSnapshot(&ProfileRequest{Profile: "dev", DeniedTools: []string{"web_fetch"}}, cat, SourceComposer, in)
	if err != nil {
		t.Fatal(err)
	}
	if s.PermissionProfile.Profile != "dev" || s.PermissionProfile.Mode != ModeAutoAcceptEdits || s.Sandbox.Mode != SandboxWorkspaceWrite ||
		ResolvePathRules(s.Sandbox.Filesystem.Rules, "/work/repo/secret/x").Access != AccessDeny || s.PermissionProfile.EffectivePolicy.DeniedTools[0] != "web_fetch" {
		t.Fatalf("profile dev: %+v", s.PermissionProfile)
	}
	if _, err := SelectSnapshot(&ProfileRequest{Profile: "nope"}, cat, SourceComposer, in); !errors.As(err, &fe) || fe.Field != "permission_profile.profile" || !strings.Contains(err.Error(), "known: :danger-full-access, :read-only, :workspace, dev") {
		t.Fatalf("unknown profile: %v", err)
	}
	// Without constraints a mode resolves exactly as before.
	m, err := SelectSnapshot(&ProfileRequest{Mode: ModeSupervised}, cat, SourceComposer, in)
	in2 := in
	in2.Profile = ResolveProfile(&ProfileRequest{Mode: ModeSupervised}, SourceComposer)
	want, _ := ResolveSnapshot(in2)
	if err != nil || m.Sandbox.Filesystem.Rules != nil || len(m.Sandbox.Filesystem.Entries) != len(want.Sandbox.Filesystem.Entries) {
		t.Fatalf("mode: %v %+v", err, m.Sandbox)
	}
	// The operator's list binds modes too (as the built-ins they equal),
	// and the default.
	cat.Constraints = &Constraints{AllowedProfiles: []string{"dev", BuiltinReadOnly}}
	if _, err := SelectSnapshot(&ProfileRequest{Mode: ModeFullAccess}, cat, SourceComposer, in); err == nil || !strings.Contains(err.Error(), "allowed_profiles: [dev :read-only]") {
		t.Fatalf("full_access outside the list: %v", err)
	}
	if _, err := SelectSnapshot(nil, cat, SourceComposer, in); err == nil {
		t.Fatal("the defaulted full_access escaped the operator's list")
	}
	if _, err := SelectSnapshot(&ProfileRequest{Profile: BuiltinWorkspace}, cat, SourceComposer, in); err == nil || !strings.Contains(err.Error(), "allowed_profiles: dev, :read-only") {
		t.Fatalf(":workspace outside the list: %v", err)
	}
	if _, err := SelectSnapshot(&ProfileRequest{Mode: ModeSupervised}, cat, SourceComposer, in); err != nil {
		t.Fatalf("control: supervised is :read-only, allowed: %v", err)
	}
	// Required denies are carried by mode selections too, locked.
	cat.Constraints.RequiredDeny = []string{":workspace_roots/secrets"}
	m, err = SelectSnapshot(&ProfileRequest{Mode: ModeSupervised}, cat, SourceComposer, in)
	if err != nil {
		t.Fatal(err)
	}
	if d := ResolvePathRules(m.Sandbox.Filesystem.Rules, "/work/repo/secrets/k"); d.Access != AccessDeny || !d.Rule.Locked {
		t.Fatalf("required deny missing from a mode selection: %+v", d)
	}
	if m.PermissionProfile.Mode != ModeSupervised || m.PermissionProfile.Profile != "" || m.Sandbox.Mode != SandboxReadOnly {
		t.Fatalf("mode selection shows %+v %s", m.PermissionProfile, m.Sandbox.Mode)
	}
	if d := ResolvePathRules(m.Sandbox.Filesystem.Rules, "/work/repo/src/a.go"); d.Access != AccessRead {
		t.Fatalf("control: the rest of the workspace stays readable: %+v", d)
	}
}

// TestProfileEntriesHoldTheRules: the kernel's entries (AccessAt) give what
// the rules decide for a reopened subtree inside a deny and a read-only
// subtree inside a writable one; nowhere do they give more, and the
// snapshot is active. A write reopened under a read-only subtree is the one
// place the entries give less (the carve-out caps it): decisions take the
// narrower, so the command and the decision agree.
func TestProfileEntriesHoldTheRules(t *testing.T) {
	set := ProfileSet{"r": {Name: "r", Filesystem: map[string]Access{
		TokenMinimal: AccessRead, "/r": AccessWrite, "/r/blocked": AccessDeny, "/r/blocked/allowed": AccessWrite,
		"/r/ro": AccessRead, "/r/ro/tmp": AccessWrite,
	}}}
	in := goldenInputs(ModeAutoAcceptEdits)
	in.Profile = TurnPermissionProfileSnapshot{}
	cp, err := CompileProfile(set, "r", ProfileEnv{Cwd: "/r"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ResolveProfileSnapshot(cp, SourceComposer, in)
	if err != nil {
		t.Fatal(err)
	}
	if s.Enforcement.Status != EnforcementActive {
		t.Fatalf("enforcement %+v", s.Enforcement)
	}
	fs := &s.Sandbox.Filesystem
	for p, want := range map[string]Access{
		"/r/a": AccessWrite, "/r/blocked/x": AccessDeny, "/r/blocked/allowed/y": AccessWrite, "/r/ro/z": AccessRead,
		"/r/ro/tmp/w": AccessRead, "/r/.git/config": AccessRead, "/usr/bin/env": AccessRead, "/elsewhere": AccessDeny,
	} {
		if got := AccessAt(fs, p); got != want {
			t.Errorf("entries at %s: %s, want %s", p, got, want)
		}
		if AccessAt(fs, p).rank() > ResolvePathRules(fs.Rules, p).Access.rank() {
			t.Errorf("entries grant more than the rules at %s", p)
		}
	}
	// A gap is reported, not hidden: entries that grant more than the rules
	// (here, a grant added by hand) make the snapshot degrade.
	fs.Entries = append(fs.Entries, FilesystemEntry{Kind: PathExplicit, Path: "/r/blocked", Access: AccessWrite, ResolvedPath: "/r/blocked"})
	fs.Entries = slices.DeleteFunc(fs.Entries, func(e FilesystemEntry) bool { return e.Access == AccessDeny && e.ResolvedPath == "/r/blocked" })
	if gaps := kernelGaps(fs); len(gaps) != 1 || !strings.Contains(gaps[0].Reason, `"/r/blocked" = deny`) {
		t.Fatalf("gaps %+v", gaps)
	}
}

// TestApprovableOpensProfileRules: under :read-only a write in the workspace
// is approvable (the policy asks), as under supervised; protected paths and
// the profile's own denies stay closed.
func TestApprovableOpensProfileRules(t *testing.T) {
	set := ProfileSet{"ro": {Name: "ro", Extends: BuiltinReadOnly, Filesystem: map[string]Access{":workspace_roots/secret": AccessDeny}}}
	in := goldenInputs(ModeSupervised)
	in.Profile = TurnPermissionProfileSnapshot{}
	cp, _ := CompileProfile(set, "ro", ProfileEnv{Cwd: in.Cwd, WorkspaceRoot: in.WorkspaceRoot}, nil)
	s, _ := ResolveProfileSnapshot(cp, SourceComposer, in)
	a := s.Approvable()
	for p, want := range map[string]Access{"/work/repo/x.go": AccessWrite, "/work/repo/.git/config": AccessRead, "/work/repo/secret/k": AccessDeny} {
		if got := ResolvePathRules(a.Sandbox.Filesystem.Rules, p).Access; got != want {
			t.Errorf("approvable %s: %s, want %s", p, got, want)
		}
	}
	if ResolvePathRules(s.Sandbox.Filesystem.Rules, "/work/repo/x.go").Access != AccessRead {
		t.Fatal("Approvable changed the snapshot's own rules")
	}
}

// TestChildKeepsParentRules: a child turn of a profile turn carries the
// parent's rules, so a glob deny the kernel entries do not hold still binds
// the child's decisions.
func TestChildKeepsParentRules(t *testing.T) {
	set := ProfileSet{"p": {Name: "p", Extends: BuiltinWorkspace, Filesystem: map[string]Access{"**/*.env": AccessDeny}}}
	in := goldenInputs(ModeAutoAcceptEdits)
	in.Profile = TurnPermissionProfileSnapshot{}
	parent, err := SelectSnapshot(&ProfileRequest{Profile: "p"}, &ProfileCatalog{Profiles: set}, SourceComposer, in)
	if err != nil {
		t.Fatal(err)
	}
	child, err := ResolveChildSnapshot(ChildInputs{Requested: &ProfileRequest{Mode: ModeAutoAcceptEdits}, Parent: &parent, ParentTurnID: "parent",
		Inputs: SnapshotInputs{Cwd: in.Cwd}})
	if err != nil {
		t.Fatal(err)
	}
	if d := ResolvePathRules(child.Sandbox.Filesystem.Rules, "/work/repo/.env"); d.Access != AccessDeny {
		t.Fatalf("the child lost the parent's glob deny: %+v", d)
	}
	if AccessAt(&child.Sandbox.Filesystem, "/work/repo/main.go") != AccessWrite {
		t.Fatal("control: the child still writes the workspace")
	}
}

func TestPromptNamesTheProfile(t *testing.T) {
	in := goldenInputs(ModeFullAccess)
	s, err := SelectSnapshot(&ProfileRequest{Profile: BuiltinWorkspace}, nil, SourceComposer, in)
	if err != nil {
		t.Fatal(err)
	}
	if p := PermissionsPrompt(s.PermissionProfile); !strings.Contains(p, "Permission profile: :workspace (approvals as in mode auto_accept_edits)") {
		t.Fatalf("prompt:\n%s", p)
	}
	set := ProfileSet{"wide": {Name: "wide", Extends: BuiltinDangerFullAccess, Filesystem: map[string]Access{"**/*.pem": AccessDeny}}}
	w, _ := SelectSnapshot(&ProfileRequest{Profile: "wide"}, &ProfileCatalog{Profiles: set}, SourceComposer, in)
	if p := PermissionsPrompt(w.PermissionProfile); !strings.Contains(p, "Permission profile: wide") {
		t.Fatalf("a full-access profile with rules must be shown:\n%s", p)
	}
	m, _ := SelectSnapshot(nil, nil, SourceComposer, in)
	if PermissionsPrompt(m.PermissionProfile) != "" {
		t.Fatal("the default renders nothing")
	}
}

// TestAllowedRootsBoundTheTurnsRoots: the ninth attack review started an
// auto_accept_edits turn rooted at "/" under allowed_profiles = [:workspace]
// with a runtime credential, and wrote to /etc without a question. With
// allowed_roots, every root a starter names (workspace root, or the cwd
// without one; project and app read roots; the cwd) must lie inside one,
// "~/" read as the catalog's home; the controls inside are selected.
func TestAllowedRootsBoundTheTurnsRoots(t *testing.T) {
	cat := &ProfileCatalog{Home: "/home/u", Constraints: &Constraints{AllowedProfiles: []string{BuiltinWorkspace}, AllowedRoots: []string{"/work", "~/code"}}}
	req := &ProfileRequest{Mode: ModeAutoAcceptEdits}
	for field, in := range map[string]SnapshotInputs{
		"workspace_root":    {WorkspaceRoot: "/", Cwd: "/"},
		"project_roots[1]":  {WorkspaceRoot: "/work/a", Cwd: "/work/a", ProjectRoots: []string{"/work/b", "/etc"}},
		"app_read_roots[0]": {WorkspaceRoot: "/work/a", Cwd: "/work/a", AppReadRoots: []string{"/home/u"}},
		"cwd":               {WorkspaceRoot: "/work/a", Cwd: "/tmp"},
	} {
		_, err := SelectSnapshot(req, cat, SourceComposer, in)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != field || !strings.Contains(fe.Message, "allowed_roots: /work, ~/code") {
			t.Errorf("%s outside: %v", field, err)
		}
	}
	for _, bad := range []string{"/workx", "/work/../etc", "/home/u/codex"} {
		if _, err := SelectSnapshot(req, cat, SourceComposer, SnapshotInputs{WorkspaceRoot: bad, Cwd: bad}); err == nil {
			t.Errorf("%s: selected", bad)
		}
	}
	// No workspace root: the cwd is the root.
	if _, err := SelectSnapshot(req, cat, SourceComposer, SnapshotInputs{Cwd: "/srv"}); err == nil {
		t.Error("a cwd outside, without a workspace root: selected")
	}
	for _, in := range []SnapshotInputs{
		{WorkspaceRoot: "/work", Cwd: "/work"},
		{WorkspaceRoot: "/work/a", Cwd: "/work/a/sub", ProjectRoots: []string{"/home/u/code/lib"}, AppReadRoots: []string{"/work/shared"}},
		{Cwd: "/home/u/code/p"},
	} {
		if _, err := SelectSnapshot(req, cat, SourceComposer, in); err != nil {
			t.Errorf("control %+v: %v", in, err)
		}
	}
	// Without allowed_roots, any root is taken, as before.
	cat.Constraints.AllowedRoots = nil
	if _, err := SelectSnapshot(req, cat, SourceComposer, SnapshotInputs{WorkspaceRoot: "/", Cwd: "/"}); err != nil {
		t.Errorf("no allowed_roots: %v", err)
	}
	if errs := (&Constraints{AllowedRoots: []string{"rel", "/a/*", "~x"}}).Validate(); len(errs) != 3 {
		t.Errorf("invalid allowed_roots: %v", errs)
	}
}

// TestAllowedRootsBindTheSnapshotsRoots: under allowed_roots a snapshot's
// roots carry the allowed root they lay in (Within), resolved as the server
// resolved it; a child's narrower root keeps its parent's bound.
func TestAllowedRootsBindTheSnapshotsRoots(t *testing.T) {
	cons := &Constraints{AllowedRoots: []string{"~/code", "/work"}}
	cons.SetResolvedRoots([]string{"/data/code", "/work"})
	cat := &ProfileCatalog{Home: "/home/u", Constraints: cons}
	s, err := SelectSnapshot(&ProfileRequest{Mode: ModeAutoAcceptEdits}, cat, SourceComposer,
		SnapshotInputs{WorkspaceRoot: "/home/u/code/p", Cwd: "/home/u/code/p", ProjectRoots: []string{"/work/lib"}})
	if err != nil {
		t.Fatal(err)
	}
	within := map[string]string{}
	for _, e := range s.Sandbox.Filesystem.Entries {
		if e.Within != "" {
			within[e.Path] = e.Within
		}
	}
	if within["/home/u/code/p"] != "/data/code" || within["/work/lib"] != "/work" || len(within) != 2 {
		t.Fatalf("bounds: %v", within)
	}
	// A child's cap names a narrower root without a bound: the
	// intersection keeps the parent's.
	child := IntersectFilesystem(s.Sandbox.Filesystem, FilesystemPolicy{Entries: []FilesystemEntry{
		{Kind: PathExplicit, Path: "/home/u/code/p/sub", ResolvedPath: "/home/u/code/p/sub", Access: AccessWrite, Provenance: ProvenanceTaskCap}}})
	found := false
	for _, e := range child.Entries {
		if e.ResolvedPath == "/home/u/code/p/sub" && e.Access == AccessWrite {
			found = true
			if e.Within != "/data/code" {
				t.Fatalf("the child's root lost its bound: %+v", e)
			}
		}
	}
	if !found {
		t.Fatalf("control: no child root: %+v", child.Entries)
	}
	// Without allowed_roots, nothing is bound.
	s, _ = SelectSnapshot(&ProfileRequest{Mode: ModeAutoAcceptEdits}, &ProfileCatalog{}, SourceComposer, SnapshotInputs{WorkspaceRoot: "/w", Cwd: "/w"})
	for _, e := range s.Sandbox.Filesystem.Entries {
		if e.Within != "" {
			t.Fatalf("bound without constraints: %+v", e)
		}
	}
}
