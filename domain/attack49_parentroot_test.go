package domain

import "testing"

// TestAttack49ParentRootDodgesSubpathKey: README, "Permission profiles"
// (after ee29aea): "the roots' own subpath keys hold as if expanded at
// every ancestor of a root ... An operator's required deny relative to the
// roots is expanded at those ancestors too." capRoots checks the ancestors'
// expansion only AT the root's own path (and the second pass only at each
// rule's own pattern), and ancestorDenies keeps an ancestor's expansion
// only when it holds the root. A key of two or more components
// (".github/workflows" = read, "config/secrets" = deny,
// "web/node_modules" = overlay, a required deny ":workspace_roots/ops/vault")
// expanded at the repository names a directory BELOW a root the runtime
// names at its parent (repo/.github, repo/config, repo/web, repo/ops):
// the root itself is decided by the bare ":workspace_roots" = write at
// the ancestor, so nothing is capped, and the root's own write rule covers
// the carve-out, the deny, the overlay and the operator's vault. The
// forty-eighth attack, one directory up.
//
// Controls: the turn rooted at the repository keeps every carve-out; the
// turn rooted at the parent keeps write on the parent's other files.
func TestAttack49ParentRootDodgesSubpathKey(t *testing.T) {
	dev := &Profile{Name: "dev", Extends: BuiltinWorkspace, Filesystem: map[string]Access{
		":workspace_roots":                   AccessWrite,
		":workspace_roots/.github/workflows": AccessRead,
		":workspace_roots/config/secrets":    AccessDeny,
		":workspace_roots/web/node_modules":  AccessOverlay,
	}}
	set := ProfileSet{"dev": dev}
	cons := &Constraints{AllowedRoots: []string{"/w"}, RequiredDeny: []string{":workspace_roots/ops/vault"}}
	type want struct {
		access  Access
		overlay bool
	}
	check := func(root, path string, w want) bool {
		t.Helper()
		cp, err := CompileProfile(set, "dev", ProfileEnv{WorkspaceRoot: root, Cwd: root}, cons)
		if err != nil {
			t.Fatal(err)
		}
		d := cp.Explain(path)
		ov := d.Rule != nil && d.Rule.Overlay
		if d.Access != w.access || ov != w.overlay {
			key := ""
			if d.Rule != nil {
				key = d.Rule.Key + " at " + d.Rule.Pattern
			}
			t.Errorf("root %s: %s is %s (overlay %v, rule %s), want %s (overlay %v)", root, path, d.Access, ov, key, w.access, w.overlay)
			return false
		}
		return true
	}
	cases := []struct {
		parent, path string
		want         want
	}{
		{"/w/.github", "/w/.github/workflows/release.yml", want{AccessRead, false}},
		{"/w/config", "/w/config/secrets/prod.key", want{AccessDeny, false}},
		{"/w/web", "/w/web/node_modules/left-pad/index.js", want{AccessRead, true}},
		{"/w/ops", "/w/ops/vault/prod.key", want{AccessDeny, false}},
	}
	// Controls.
	for _, c := range cases {
		if !check("/w", c.path, c.want) {
			t.Fatalf("control: the repository's turn")
		}
	}
	if !check("/w/.github", "/w/.github/CODEOWNERS", want{AccessWrite, false}) ||
		!check("/w/config", "/w/config/app.toml", want{AccessWrite, false}) {
		t.Fatalf("control: a root at the parent keeps its other files")
	}
	// The attack: the root named at the key's parent directory.
	for _, c := range cases {
		check(c.parent, c.path, c.want)
	}
}
