package domain

import "testing"

// TestAttack48RootInsideRequiredDeny: README, "Permission profiles":
// `serve --constraints` "adds its denies to every compiled snapshot,
// locked: no rule of a profile reopens anything under them", and a key may
// be a special token followed by a subpath (":workspace_roots/vault": the
// vault directory of every workspace). allowed_roots bounds the roots a
// runtime names ("Bound the roots too"). The agent, holding the runtime's
// credential, starts a turn whose workspace_root IS the denied directory
// (<repo>/vault, inside allowed_roots): the required deny is expanded below
// the roots the agent chose (<repo>/vault/vault), never at <repo>/vault,
// and the workspace's write rule covers the vault's files. The same holds
// for the profile's own roots-relative denies and for an app_read_roots
// entry inside one (read reopened).
//
// Controls: with the repository as the workspace root the vault is denied
// (locked), also when a project root is named inside it.
func TestAttack48RootInsideRequiredDeny(t *testing.T) {
	cat := &ProfileCatalog{Home: "/home/u",
		Profiles:    ProfileSet{"dev": {Name: "dev", Extends: BuiltinWorkspace}},
		Constraints: &Constraints{AllowedProfiles: []string{"dev"}, AllowedRoots: []string{"/work"}, RequiredDeny: []string{":workspace_roots/vault"}}}
	const secret = "/work/repo/vault/prod.key"
	decide := func(in SnapshotInputs) PathDecision {
		t.Helper()
		s, err := SelectSnapshot(&ProfileRequest{Profile: "dev"}, cat, SourceComposer, in)
		if err != nil {
			t.Fatalf("select %+v: %v", in, err)
		}
		return ResolvePathRules(s.Sandbox.Filesystem.Rules, secret)
	}
	// Controls.
	if d := decide(SnapshotInputs{WorkspaceRoot: "/work/repo", Cwd: "/work/repo"}); d.Access != AccessDeny || d.Rule == nil || !d.Rule.Locked {
		t.Fatalf("control: the repository's vault under the required deny: %+v", d)
	}
	if d := decide(SnapshotInputs{WorkspaceRoot: "/work/repo", Cwd: "/work/repo", ProjectRoots: []string{"/work/repo/vault"}}); d.Access != AccessDeny {
		t.Fatalf("control: a project root inside the required deny: %+v", d)
	}
	// The attack: the workspace root inside the denied directory.
	if d := decide(SnapshotInputs{WorkspaceRoot: "/work/repo/vault", Cwd: "/work/repo/vault"}); d.Access != AccessDeny {
		key := ""
		if d.Rule != nil {
			key = d.Rule.Key
		}
		t.Errorf("a turn rooted at the required-deny directory /work/repo/vault gets %s on %s (rule %q)", d.Access, secret, key)
	}
}
