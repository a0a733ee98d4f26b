package tests

import (
	"net/http"
	"path/filepath"
	"testing"
)

// TestAttack48ProjectRootReopensDeny: README, "Permission profiles": "the
// most specific matching rule wins" and a subtree is reopened inside a
// deny by a more specific rule *the profile writes* ("build/cache/keep" =
// "write"). The operator's profile writes the workspace with a directory
// denied ("secrets" = "deny" under :workspace_roots, and "**/private" =
// "deny"), and constraints bound the profile and the roots (allowed_roots
// = the workspace). The agent, holding the runtime's credential, starts a
// turn of that profile whose project_roots name a directory INSIDE the
// denied one (secrets/prod, app/private/keys): still inside allowed_roots.
// ":workspace_roots" = write expands to that project root, one component
// more specific than the deny, so the runtime's own root reopens what the
// operator denied: read_file of the secret is allowed and a patch may
// overwrite it. The thirty-third review closed this for an overlay
// (capRootsInOverlays); a deny was left.
//
// Controls: the same profile's turn without the project root is denied
// the file; an ordinary workspace file is allowed; a project root outside
// allowed_roots is refused.
func TestAttack48ProjectRootReopensDeny(t *testing.T) {
	t.Parallel()
	root := workspace(t)
	secret := filepath.Join(root, "secrets", "prod", "db.key")
	private := filepath.Join(root, "app", "private", "keys", "signing.pem")
	makeFiles(t, "s3cret\n", secret, private)
	runtime := devProfileRuntime(t, `
[permissions.dev]
extends = ":workspace"
[permissions.dev.filesystem]
"**/private" = "deny"
[permissions.dev.filesystem.":workspace_roots"]
"." = "write"
"secrets" = "deny"
`, root)
	start := func(id string, projectRoots ...string) (int, []byte) {
		body := map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
			"permission_profile": map[string]any{"profile": "dev"}, "workspace_root": root, "cwd": root}
		if projectRoots != nil {
			body["project_roots"] = projectRoots
		}
		return runtime.Request("POST", "/v1/turns", body)
	}
	read := func(turnID, call, p string) decisionAnswer {
		return runtime.decide(turnID, call, "read_file", map[string]any{"path": p})
	}

	// Controls.
	if st, raw := start("out", t.TempDir()); st != http.StatusBadRequest {
		t.Fatalf("control: a project root outside allowed_roots: %d %s", st, raw)
	}
	if st, raw := start("plain"); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, raw)
	}
	if d := read("plain", "ok", filepath.Join(root, "a.txt")); d.Decision != "allow" {
		t.Fatalf("control: an ordinary workspace file: %+v", d)
	}
	for i, f := range []string{secret, private} {
		if d := read("plain", "c"+string(rune('0'+i)), f); d.Decision != "deny" {
			t.Fatalf("control: the profile's turn reads %s: %+v", f, d)
		}
	}

	// The attack: a project root inside each denied directory.
	for i, c := range []struct{ turn, projectRoot, file string }{
		{"pr1", filepath.Join(root, "secrets", "prod"), secret},
		{"pr2", filepath.Join(root, "app", "private", "keys"), private},
	} {
		if st, raw := start(c.turn, c.projectRoot); st != http.StatusCreated {
			t.Fatalf("start with the project root %s: %d %s", c.projectRoot, st, raw)
		}
		if d := read(c.turn, "r"+string(rune('0'+i)), c.file); d.Decision != "deny" {
			t.Errorf("a turn whose project_roots name %s (inside the profile's deny) reads %s: %s %s (decided_by %s)",
				c.projectRoot, c.file, d.Decision, d.Reason, d.DecidedBy)
		}
		patch := "*** Begin Patch\n*** Update File: " + c.file + "\n@@\n-s3cret\n+attacker\n*** End Patch\n"
		if d := runtime.decide(c.turn, "w"+string(rune('0'+i)), "apply_patch", map[string]any{"patch": patch}); d.Decision != "deny" {
			t.Errorf("the same turn may patch %s: %s %s", c.file, d.Decision, d.Reason)
		}
	}
}
