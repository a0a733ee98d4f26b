package tests

import (
	"net/http"
	"path/filepath"
	"testing"
)

// TestAttack179ProjectRootInsideRootGlobDeny: the hundred-and-seventy-
// ninth review, capRoots and globs. A profile's roots-relative keys hold
// "as if the turn were rooted at each of its anchors", and without
// allowed_roots the anchors of a project root are the roots the runtime
// names above it (the workspace root). capRoots judges a root by each key
// expanded at each anchor (anchorCap), but tries a glob key only at an
// anchor where the glob's first literal component starts (rootKey.starts:
// "a glob is tried where it starts (its nearest anchor)"); without
// allowed_roots the ancestors where it starts are no anchors (anchors: lo
// = len(comps)), so a glob that begins with "**" is tried nowhere. A
// project root the runtime names inside a directory the profile denies by
// such a glob (`[":workspace_roots"] "**/secrets" = "deny"`, a project
// root at app/secrets/prod) keeps its write rule, more specific than the
// glob's match at app/secrets: the secret under it is read (and patched)
// with no one asked, as the forty-eighth review's project root inside a
// literal deny did.
//
// Controls: the same turn without the project root is refused the read;
// the same project root under the literal key ("app/secrets" = "deny") is
// refused it; an ordinary file is read.
func TestAttack179ProjectRootInsideRootGlobDeny(t *testing.T) {
	t.Parallel()
	_, runtime, root := profileRuntime(t, `
[permissions.glob]
extends = ":workspace"
[permissions.glob.filesystem.":workspace_roots"]
"**/secrets" = "deny"
[permissions.lit]
extends = ":workspace"
[permissions.lit.filesystem.":workspace_roots"]
"app/secrets" = "deny"
`)
	prod := filepath.Join(root, "app", "secrets", "prod")
	secret := filepath.Join(prod, "db.key")
	makeFiles(t, "s3cret\n", secret)
	start := func(id, profile string, projectRoots ...string) {
		body := map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
			"permission_profile": map[string]any{"profile": profile}, "workspace_root": root, "cwd": root}
		if projectRoots != nil {
			body["project_roots"] = projectRoots
		}
		runtime.JSON("POST", "/v1/turns", body, http.StatusCreated, nil)
	}
	read := func(turnID, call, p string) decisionAnswer {
		return runtime.decide(turnID, call, "read_file", map[string]any{"path": p})
	}
	start("plain", "glob")
	start("lit", "lit", prod)
	start("pr", "glob", prod)
	if d := read("plain", "ok", filepath.Join(root, "a.txt")); d.Decision != "allow" {
		t.Fatalf("control: an ordinary workspace file: %+v", d)
	}
	if d := read("plain", "r0", secret); d.Decision != "deny" {
		t.Fatalf("control: the glob profile's turn without the project root reads the secret: %+v", d)
	}
	if d := read("lit", "r0", secret); d.Decision != "deny" {
		t.Fatalf("control: the literal deny holds against a project root inside it: %+v", d)
	}
	if d := read("pr", "r0", secret); d.Decision != "deny" {
		t.Errorf("a turn whose project_roots name %s (inside the profile's \"**/secrets\" deny) reads %s: %s %s (decided_by %s)",
			prod, secret, d.Decision, d.Reason, d.DecidedBy)
	}
	p := map[string]any{"patch": "*** Begin Patch\n*** Update File: " + secret + "\n@@\n-s3cret\n+attacker\n*** End Patch\n"}
	if d := runtime.decide("pr", "w0", "apply_patch", p); d.Decision != "deny" {
		t.Errorf("the same turn may patch %s: %s %s", secret, d.Decision, d.Reason)
	}
}
