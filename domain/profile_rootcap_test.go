package domain

import "testing"

// TestRootsGrantNoMoreThanTheProfile attacks capRoots: every root below
// is one the runtime (the agent's credential) names, and each case pairs a
// root that would reopen what the profile closes with the honest roots
// that keep their write.
func TestRootsGrantNoMoreThanTheProfile(t *testing.T) {
	dev := &Profile{Name: "dev", Extends: BuiltinWorkspace, Filesystem: map[string]Access{
		":workspace_roots":                   AccessWrite,
		":workspace_roots/secrets":           AccessDeny,
		":workspace_roots/secrets/public":    AccessWrite,
		":workspace_roots/.github/workflows": AccessRead,
		":workspace_roots/workflows":         AccessWrite,
		":app_read_roots/private":            AccessDeny,
		"**/private":                         AccessDeny,
		"/srv":                               AccessWrite,
		"/srv/ro":                            AccessRead,
	}}
	set := ProfileSet{"dev": dev}
	bounded := &Constraints{AllowedRoots: []string{"/w", "/srv", "/home/u", "/opt", "/data/repos"}}
	for _, c := range []struct {
		name string
		env  ProfileEnv
		path string
		want Access
	}{
		// Attacks.
		{"workspace root chosen inside a roots-relative deny", ProfileEnv{WorkspaceRoot: "/w/secrets"}, "/w/secrets/db.key", AccessDeny},
		{"deeper inside it", ProfileEnv{WorkspaceRoot: "/w/secrets/prod"}, "/w/secrets/prod/db.key", AccessDeny},
		{"project root inside another root's deny", ProfileEnv{WorkspaceRoot: "/w", ProjectRoots: []string{"/w/secrets/prod"}}, "/w/secrets/prod/db.key", AccessDeny},
		{"project root inside a glob deny", ProfileEnv{WorkspaceRoot: "/w", ProjectRoots: []string{"/w/app/private/keys"}}, "/w/app/private/keys/k.pem", AccessDeny},
		{"workspace root at a read-only carve-out", ProfileEnv{WorkspaceRoot: "/w/.github/workflows"}, "/w/.github/workflows/release.yml", AccessRead},
		{"project root at a read-only carve-out", ProfileEnv{WorkspaceRoot: "/w", ProjectRoots: []string{"/w/.github/workflows"}}, "/w/.github/workflows/release.yml", AccessRead},
		{"a root whose own subpath key ties with the carve-out", ProfileEnv{WorkspaceRoot: "/w", ProjectRoots: []string{"/w/.github"}}, "/w/.github/workflows/release.yml", AccessRead},
		{"a workspace root at the parent of a two-component key", ProfileEnv{WorkspaceRoot: "/w/.github"}, "/w/.github/workflows/release.yml", AccessRead},
		{"two roots that would vouch for each other", ProfileEnv{WorkspaceRoot: "/srv/ro/ci", ProjectRoots: []string{"/srv/ro/ci/workflows"}}, "/srv/ro/ci/workflows/a.yml", AccessRead},
		{"two roots in a glob deny", ProfileEnv{WorkspaceRoot: "/w/app", ProjectRoots: []string{"/w/app/private/workflows"}}, "/w/app/private/workflows/a", AccessDeny},
		{"control: a checkout under a directory named like a key, outside its allowed root", ProfileEnv{WorkspaceRoot: "/data/repos/model"}, "/data/repos/model/a.py", AccessWrite},
		{"project root inside an absolute carve-out", ProfileEnv{WorkspaceRoot: "/w", ProjectRoots: []string{"/srv/ro/app"}}, "/srv/ro/app/f", AccessRead},
		{"a root inside a root capped to read", ProfileEnv{WorkspaceRoot: "/srv/ro/app", ProjectRoots: []string{"/srv/ro/app/lib"}}, "/srv/ro/app/lib/f", AccessRead},
		{"an app read root inside its own token's deny", ProfileEnv{WorkspaceRoot: "/w", AppReadRoots: []string{"/opt/private/sdk"}}, "/opt/private/sdk/key", AccessDeny},
		// Controls: the honest roots keep what the profile gives them.
		{"workspace root", ProfileEnv{WorkspaceRoot: "/w"}, "/w/src/main.go", AccessWrite},
		{"nested project root", ProfileEnv{WorkspaceRoot: "/w", ProjectRoots: []string{"/w/app"}}, "/w/app/main.go", AccessWrite},
		{"project root elsewhere", ProfileEnv{WorkspaceRoot: "/w", ProjectRoots: []string{"/home/u/lib"}}, "/home/u/lib/x.go", AccessWrite},
		{"a reopening inside the deny", ProfileEnv{WorkspaceRoot: "/w", ProjectRoots: []string{"/w/secrets/public/docs"}}, "/w/secrets/public/docs/a.md", AccessWrite},
		{"a root chosen inside the reopening", ProfileEnv{WorkspaceRoot: "/w/secrets/public"}, "/w/secrets/public/a.md", AccessWrite},
		{"the workspace's own deny", ProfileEnv{WorkspaceRoot: "/w"}, "/w/secrets/db.key", AccessDeny},
		{"a root in a writable absolute grant", ProfileEnv{WorkspaceRoot: "/srv/app"}, "/srv/app/f", AccessWrite},
		{"the carve-out's sibling", ProfileEnv{WorkspaceRoot: "/w", ProjectRoots: []string{"/w/.github"}}, "/w/.github/CODEOWNERS", AccessWrite},
	} {
		c.env.Cwd = c.env.WorkspaceRoot
		cp, err := CompileProfile(set, "dev", c.env, bounded)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if d := cp.Explain(c.path); d.Access != c.want {
			key := ""
			if d.Rule != nil {
				key = d.Rule.Key + " = " + string(d.Rule.Access)
			}
			t.Errorf("%s: %s is %s (rule %s), want %s", c.name, c.path, d.Access, key, c.want)
		}
	}
	// Without allowed_roots the runtime may root a turn anywhere, and a
	// roots-relative key holds at the roots it names only; the profile's
	// absolute rules and the roots named above a root still hold.
	for _, c := range []struct {
		name string
		env  ProfileEnv
		path string
		want Access
	}{
		{"project root inside another root's deny", ProfileEnv{WorkspaceRoot: "/w", ProjectRoots: []string{"/w/secrets/prod"}}, "/w/secrets/prod/db.key", AccessDeny},
		{"project root at another root's carve-out", ProfileEnv{WorkspaceRoot: "/w", ProjectRoots: []string{"/w/.github"}}, "/w/.github/workflows/release.yml", AccessRead},
		{"workspace root inside a glob deny", ProfileEnv{WorkspaceRoot: "/w/app/private/keys"}, "/w/app/private/keys/k.pem", AccessDeny},
		{"workspace root inside an absolute carve-out", ProfileEnv{WorkspaceRoot: "/srv/ro/app"}, "/srv/ro/app/f", AccessRead},
		{"control: a root alone where only roots-relative keys say no", ProfileEnv{WorkspaceRoot: "/w/secrets"}, "/w/secrets/db.key", AccessWrite},
		{"control: a checkout under a directory named like a key", ProfileEnv{WorkspaceRoot: "/data/secrets/model"}, "/data/secrets/model/a.py", AccessWrite},
	} {
		c.env.Cwd = c.env.WorkspaceRoot
		cp, err := CompileProfile(set, "dev", c.env, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if d := cp.Explain(c.path); d.Access != c.want {
			t.Errorf("unbounded, %s: %s is %s, want %s", c.name, c.path, d.Access, c.want)
		}
	}
}

// TestRequiredDenyHoldsAboveTheRoot: an operator's required deny relative
// to the roots is also a turn's whose root lies inside what it names
// below an ancestor, while a root beside it keeps its write.
func TestRequiredDenyHoldsAboveTheRoot(t *testing.T) {
	set := ProfileSet{"dev": {Name: "dev", Extends: BuiltinWorkspace}}
	cons := &Constraints{AllowedRoots: []string{"/work"}, RequiredDeny: []string{":workspace_roots/vault", ":project_roots/**/keys", ":workspace_roots/ops/vault"}}
	for _, c := range []struct {
		root, path string
		want       Access
	}{
		{"/work/repo/vault", "/work/repo/vault/prod.key", AccessDeny},
		{"/work/repo/vault/sub", "/work/repo/vault/sub/prod.key", AccessDeny},
		{"/work/repo/a/keys/b", "/work/repo/a/keys/b/k", AccessDeny},
		{"/work/repo", "/work/repo/vault/prod.key", AccessDeny},
		{"/work/repo", "/work/repo/src/a.go", AccessWrite},
		{"/work/vaults", "/work/vaults/a", AccessWrite},
		{"/work/repo/src", "/work/repo/src/a.go", AccessWrite},
		{"/work/repo/ops", "/work/repo/ops/vault/prod.key", AccessDeny},
		{"/work/repo/ops", "/work/repo/ops/run.sh", AccessWrite},
	} {
		cp, err := CompileProfile(set, "dev", ProfileEnv{WorkspaceRoot: c.root, Cwd: c.root}, cons)
		if err != nil {
			t.Fatal(err)
		}
		if d := cp.Explain(c.path); d.Access != c.want {
			t.Errorf("root %s: %s is %s, want %s", c.root, c.path, d.Access, c.want)
		}
	}
}
