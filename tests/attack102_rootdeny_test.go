package tests

import (
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
)

// TestAttack102_ChildRootTokenDropsParentDeny is the domain test of the
// same name end to end, over REST with the runtime's credential (the
// agent's). The operator's team profile extends :workspace and denies the
// workspace's secrets directory by its absolute path ("<ws>/secrets" =
// "deny"; a deny written under ":workspace_roots" still caps the root, by
// capRoots' unexpanded keys, and holds); the
// dev profile extends team and names ":project_roots" = "write" (as
// :workspace already does; allowed_roots bound the roots to the
// workspace). afe93a4's childRulesWin compares rules by their patterns
// after the roots are expanded, so when the agent starts its turn with
// project_roots = [<ws>/secrets], the child's ":project_roots" rule and the
// parent's deny both have the pattern <ws>/secrets, and the parent's deny
// is dropped as replaced by the child: read_file of the secret is allowed
// and a patch may overwrite it. Before afe93a4 both rules stayed and deny
// won the tie.
//
// Controls: the same turn without the project root is denied the secret;
// an ordinary workspace file is read.
func TestAttack102_ChildRootTokenDropsParentDeny(t *testing.T) {
	t.Parallel()
	root := workspace(t)
	secret := filepath.Join(root, "secrets", "db.key")
	makeFiles(t, "s3cret\n", secret)
	runtime := devProfileRuntime(t, fmt.Sprintf(`
[permissions.team]
extends = ":workspace"
[permissions.team.filesystem]
%q = "deny"

[permissions.dev]
extends = "team"
[permissions.dev.filesystem]
":project_roots" = "write"
`, filepath.Join(root, "secrets")), root)
	start := func(id string, projectRoots ...string) (int, []byte) {
		body := map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
			"permission_profile": map[string]any{"profile": "dev"}, "workspace_root": root, "cwd": root}
		if projectRoots != nil {
			body["project_roots"] = projectRoots
		}
		return runtime.Request("POST", "/v1/turns", body)
	}
	if st, raw := start("plain"); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, raw)
	}
	if d := runtime.decide("plain", "ok", "read_file", map[string]any{"path": filepath.Join(root, "a.txt")}); d.Decision != "allow" {
		t.Fatalf("control: an ordinary workspace file: %+v", d)
	}
	if d := runtime.decide("plain", "c0", "read_file", map[string]any{"path": secret}); d.Decision != "deny" {
		t.Fatalf("control: the profile's turn reads %s: %+v", secret, d)
	}
	// The agent names the denied directory as its project root.
	if st, raw := start("pr", filepath.Join(root, "secrets")); st != http.StatusCreated {
		t.Fatalf("start with the project root: %d %s", st, raw)
	}
	if d := runtime.decide("pr", "r0", "read_file", map[string]any{"path": secret}); d.Decision != "deny" {
		t.Errorf("a turn whose project_roots name the parent's denied %s reads %s: %s %s (decided_by %s)",
			filepath.Dir(secret), secret, d.Decision, d.Reason, d.DecidedBy)
	}
	patch := "*** Begin Patch\n*** Update File: " + secret + "\n@@\n-s3cret\n+attacker\n*** End Patch\n"
	if d := runtime.decide("pr", "w0", "apply_patch", map[string]any{"patch": patch}); d.Decision != "deny" {
		t.Errorf("the same turn may patch %s: %s %s", secret, d.Decision, d.Reason)
	}
}
