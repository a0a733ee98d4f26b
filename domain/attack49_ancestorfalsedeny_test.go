package domain

import "testing"

// TestAttack49AncestorKeyDeniesHonestRoot (false deny): README (after
// ee29aea): "the roots' own subpath keys hold as if expanded at every
// ancestor of a root". capRoots expands them at "/" and every directory
// above an honest root too, so a repository-relative key whose name is
// also a directory on the path to the checkout turns on the checkout
// itself. An ML profile denies each repository's data directory
// (":workspace_roots/data" = "deny": datasets, credentials); the host
// keeps its checkouts under /data (a data volume: /data/repos/model).
// Expanded at the ancestor "/", the key names /data, the whole workspace
// lies inside it, and ":workspace_roots" = write at /data/repos/model is
// capped to deny: the turn may not read its own source (any key named
// like a directory above the checkout does this: "src" = read with
// checkouts in ~/src/..., "build" = deny on a CI host's /build/...). The
// same profile on /home/u/repos/model is unaffected.
//
// Control: the workspace elsewhere keeps its write and its data deny.
func TestAttack49AncestorKeyDeniesHonestRoot(t *testing.T) {
	set := ProfileSet{"ml": {Name: "ml", Extends: BuiltinWorkspace, Filesystem: map[string]Access{
		":workspace_roots":      AccessWrite,
		":workspace_roots/data": AccessDeny,
	}}}
	explain := func(root, p string) PathDecision {
		cp, err := CompileProfile(set, "ml", ProfileEnv{WorkspaceRoot: root, Cwd: root}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return cp.Explain(p)
	}
	// Controls.
	if d := explain("/home/u/repos/model", "/home/u/repos/model/train.py"); d.Access != AccessWrite {
		t.Fatalf("control: the workspace's source is %s", d.Access)
	}
	if d := explain("/home/u/repos/model", "/home/u/repos/model/data/set.csv"); d.Access != AccessDeny {
		t.Fatalf("control: the workspace's data is %s", d.Access)
	}
	if d := explain("/data/repos/model", "/data/repos/model/data/set.csv"); d.Access != AccessDeny {
		t.Fatalf("control: the checkout's data under /data is %s", d.Access)
	}
	// The honest checkout under /data.
	if d := explain("/data/repos/model", "/data/repos/model/train.py"); d.Access != AccessWrite {
		key := ""
		if d.Rule != nil {
			key = d.Rule.Key + " at " + d.Rule.Pattern
		}
		t.Errorf("a workspace checked out under /data: its own source is %s (rule %s), want write — the data key expanded at / denies the whole workspace", d.Access, key)
	}
}
