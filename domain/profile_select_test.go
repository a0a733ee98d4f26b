package domain

import (
	"errors"
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
