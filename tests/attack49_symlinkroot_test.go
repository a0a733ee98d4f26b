package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestAttack49SymlinkRootReopensDeny: README, "Permission profiles" (after
// ee29aea): a rule a root produces "never gives more where it lies than the
// profile's other rules decide there: inside a deny it is a deny". capRoots
// judges the roots as written (lexically: expandedFrom, ancestors,
// ResolvePathRules on CleanPath), while a decision canonicalises the
// profile's rules (sandbox canonicalRules: symlinks followed) and the
// server leaves a project root as written unless Claude Code projects are
// configured (checkProjectRoots). The operator's profile writes the
// workspace and denies "secrets" under :workspace_roots; allowed_roots is
// the workspace. The agent, holding the runtime's credential, has made a
// link <repo>/lnk -> secrets/prod (a write in its workspace) and starts a
// turn whose project_roots name <repo>/lnk: inside allowed_roots where it
// leads, lexically beside the deny, so nothing is capped; at decision time
// ":workspace_roots" = write at <repo>/lnk becomes <repo>/secrets/prod,
// one component more specific than the deny. The forty-eighth attack
// through a symlink: read_file and apply_patch of the secret are allowed,
// named by its own path or through the link.
//
// Controls: the same profile's turn without the project root is denied the
// secret; a real project root (<repo>/app) keeps its write.
func TestAttack49SymlinkRootReopensDeny(t *testing.T) {
	t.Parallel()
	root := workspace(t)
	secret := filepath.Join(root, "secrets", "prod", "db.key")
	app := filepath.Join(root, "app", "main.go")
	makeFiles(t, "s3cret\n", secret, app)
	if err := os.Symlink("secrets/prod", filepath.Join(root, "lnk")); err != nil {
		t.Fatal(err)
	}
	runtime := devProfileRuntime(t, `
[permissions.dev]
extends = ":workspace"
[permissions.dev.filesystem.":workspace_roots"]
"." = "write"
"secrets" = "deny"
`, root)
	start := func(id string, projectRoots ...string) {
		body := map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
			"permission_profile": map[string]any{"profile": "dev"}, "workspace_root": root, "cwd": root}
		if projectRoots != nil {
			body["project_roots"] = projectRoots
		}
		if st, raw := runtime.Request("POST", "/v1/turns", body); st != http.StatusCreated {
			t.Fatalf("start %s: %d %s", id, st, raw)
		}
	}
	patch := func(file string) map[string]any {
		return map[string]any{"patch": "*** Begin Patch\n*** Update File: " + file + "\n@@\n-s3cret\n+attacker\n*** End Patch\n"}
	}

	// Controls.
	start("plain")
	if d := runtime.decide("plain", "c0", "read_file", map[string]any{"path": secret}); d.Decision != "deny" {
		t.Fatalf("control: the profile's turn reads %s: %+v", secret, d)
	}
	start("app", filepath.Join(root, "app"))
	if d := runtime.decide("app", "c1", "apply_patch", patch(app)); d.Decision != "allow" {
		t.Fatalf("control: a real project root's file: %+v", d)
	}

	// The attack: the project root named through a link into the deny.
	start("lnk", filepath.Join(root, "lnk"))
	for i, f := range []string{secret, filepath.Join(root, "lnk", "db.key")} {
		if d := runtime.decide("lnk", "r"+string(rune('0'+i)), "read_file", map[string]any{"path": f}); d.Decision != "deny" {
			t.Errorf("a turn whose project root is a link into the deny reads %s: %s %s (decided_by %s)", f, d.Decision, d.Reason, d.DecidedBy)
		}
		if d := runtime.decide("lnk", "w"+string(rune('0'+i)), "apply_patch", patch(f)); d.Decision != "deny" {
			t.Errorf("the same turn patches %s: %s %s (decided_by %s)", f, d.Decision, d.Reason, d.DecidedBy)
		}
	}
}
