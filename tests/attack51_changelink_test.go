package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestAttack51ChangeProfileDropsRootLinks: 30dd239 judges a root "where
// it leads when the turn starts" (README, profiles: "a root is judged
// where it lies (where it is written and, through a symlink, where it
// leads when the turn starts)"): the engine records the links
// (checkRoots → StartTurn.RootLinks) and CompileProfile caps a root whose
// link leads into a deny. A change of the turn's permissions
// (POST /v1/turns/{id}/permissions → decideChange) recompiles the profile
// from s.Inputs without RootLinks, so the cap is lost on every change.
//
// The agent (the runtime's credential) makes <repo>/lnk -> secrets/prod
// and starts a turn in the read-only "review" profile with project_roots
// = [<repo>/lnk]: the secret is denied. A person (admin) then widens the
// turn to "dev", the profile the operator wrote to deny secrets/ under
// every workspace root: the recompiled snapshot gives the link root
// write, and at decision time (rules canonicalised) <repo>/secrets/prod
// is one component more specific than the deny: read_file and
// apply_patch of the secret are allowed.
//
// Controls: a turn started in "dev" with the same link root is denied
// the secret (30dd239's fix); after the same change, a real project root
// keeps its write.
func TestAttack51ChangeProfileDropsRootLinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	profiles := filepath.Join(dir, "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.dev]
extends = ":workspace"
[permissions.dev.filesystem.":workspace_roots"]
"." = "write"
"secrets" = "deny"

[permissions.review]
extends = ":workspace"
[permissions.review.filesystem.":workspace_roots"]
"." = "read"
"secrets" = "deny"
`), 0o600); err != nil {
		t.Fatal(err)
	}
	root := workspace(t)
	cons := filepath.Join(dir, "constraints.toml")
	if err := os.WriteFile(cons, []byte("allowed_profiles = [\"dev\", \"review\"]\nallowed_roots = [\""+root+"\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(root, "secrets", "prod", "db.key")
	app := filepath.Join(root, "app", "main.go")
	for _, f := range []string{secret, app} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("s3cret\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("secrets/prod", filepath.Join(root, "lnk")); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles, "--constraints", cons)
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	start := func(id, profile string, projectRoots ...string) {
		body := map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
			"permission_profile": map[string]any{"profile": profile}, "workspace_root": root, "cwd": root,
			"project_roots": projectRoots}
		if st, raw := runtime.Request("POST", "/v1/turns", body); st != http.StatusCreated {
			t.Fatalf("start %s: %d %s", id, st, raw)
		}
	}
	widen := func(id string) {
		s.JSON("POST", "/v1/turns/"+id+"/permissions", map[string]any{"permission_profile": map[string]any{"profile": "dev"}}, http.StatusOK, nil)
	}
	patch := func(file string) map[string]any {
		return map[string]any{"patch": "*** Begin Patch\n*** Update File: " + file + "\n@@\n-s3cret\n+attacker\n*** End Patch\n"}
	}
	lnk := filepath.Join(root, "lnk")

	// Controls.
	start("devlnk", "dev", lnk)
	if d := runtime.decide("devlnk", "c0", "read_file", map[string]any{"path": secret}); d.Decision != "deny" {
		t.Fatalf("control: a dev turn rooted at the link reads %s: %+v", secret, d)
	}
	start("app", "review", filepath.Join(root, "app"))
	widen("app")
	if d := runtime.decide("app", "c1", "apply_patch", patch(app)); d.Decision != "allow" {
		t.Fatalf("control: a real project root's file after the widening: %+v", d)
	}

	// The attack: the same link root, the profile changed to dev mid-turn.
	start("lnk", "review", lnk)
	if d := runtime.decide("lnk", "r", "read_file", map[string]any{"path": secret}); d.Decision != "deny" {
		t.Fatalf("control: the review turn rooted at the link reads %s: %+v", secret, d)
	}
	widen("lnk")
	for i, f := range []string{secret, filepath.Join(lnk, "db.key")} {
		if d := runtime.decide("lnk", "r"+string(rune('0'+i)), "read_file", map[string]any{"path": f}); d.Decision != "deny" {
			t.Errorf("after a change to dev, the turn rooted at a link into the deny reads %s: %s %s (decided_by %s)", f, d.Decision, d.Reason, d.DecidedBy)
		}
		if d := runtime.decide("lnk", "w"+string(rune('0'+i)), "apply_patch", patch(f)); d.Decision != "deny" {
			t.Errorf("after a change to dev, the same turn patches %s: %s %s (decided_by %s)", f, d.Decision, d.Reason, d.DecidedBy)
		}
	}
}
