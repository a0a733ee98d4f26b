package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestAttack51RelinkedRootReopensDeny: 30dd239 judges a root "where it
// lies (where it is written and, through a symlink, where it leads when
// the turn starts)" (README, profiles): checkRoots records where a root
// leads at the start (StartTurn.RootLinks) and capRoots caps it there.
// But the decision canonicalises the profile's rules when it decides
// (sandbox canonicalRules follows the symlinks of every rule's pattern
// then), so a root's rule is judged where it leads at the start and
// applied where it leads at the decision.
//
// The agent (the runtime's credential) makes <repo>/lnk -> app and starts
// a "dev" turn with project_roots = [<repo>/lnk]: it leads to app, so
// nothing is capped. It then re-points lnk at secrets/prod (a write in
// its own workspace, which the turn allows: ln -sfn), and at the decision
// ":workspace_roots" = write at <repo>/lnk becomes <repo>/secrets/prod,
// one component more specific than "secrets" = deny: read_file and
// apply_patch of the secret are allowed.
//
// Controls: a turn started with the link already into the deny is denied
// the secret (30dd239), and the honest link root's app file keeps its
// write.
func TestAttack51RelinkedRootReopensDeny(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	profiles := filepath.Join(dir, "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.dev]
extends = ":workspace"
[permissions.dev.filesystem.":workspace_roots"]
"." = "write"
"secrets" = "deny"
`), 0o600); err != nil {
		t.Fatal(err)
	}
	root := workspace(t)
	cons := filepath.Join(dir, "constraints.toml")
	if err := os.WriteFile(cons, []byte("allowed_profiles = [\"dev\"]\nallowed_roots = [\""+root+"\"]\n"), 0o600); err != nil {
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
	// honest and lnk both lead to app at the start (two names, so that the
	// control's rules are not the attack's: canonicalRules caches by them).
	bad, lnk, honest := filepath.Join(root, "bad"), filepath.Join(root, "lnk"), filepath.Join(root, "honest")
	if err := os.Symlink("secrets/prod", bad); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{lnk, honest} {
		if err := os.Symlink("app", l); err != nil {
			t.Fatal(err)
		}
	}
	s := StartServer(t, "", "--profiles", profiles, "--constraints", cons)
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	start := func(id string, projectRoots ...string) {
		body := map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
			"permission_profile": map[string]any{"profile": "dev"}, "workspace_root": root, "cwd": root,
			"project_roots": projectRoots}
		if st, raw := runtime.Request("POST", "/v1/turns", body); st != http.StatusCreated {
			t.Fatalf("start %s: %d %s", id, st, raw)
		}
	}
	patch := func(file string) map[string]any {
		return map[string]any{"patch": "*** Begin Patch\n*** Update File: " + file + "\n@@\n-s3cret\n+attacker\n*** End Patch\n"}
	}

	// Controls.
	start("bad", bad)
	if d := runtime.decide("bad", "c0", "read_file", map[string]any{"path": secret}); d.Decision != "deny" {
		t.Fatalf("control: a turn rooted at a link into the deny reads %s: %+v", secret, d)
	}
	start("lnk", honest)
	if d := runtime.decide("lnk", "c1", "apply_patch", patch(app)); d.Decision != "allow" {
		t.Fatalf("control: the link root's app file: %+v", d)
	}

	// The attack: the link re-pointed into the deny after the start.
	start("relink", lnk)
	if err := os.Remove(lnk); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("secrets/prod", lnk); err != nil {
		t.Fatal(err)
	}
	for i, f := range []string{secret, filepath.Join(lnk, "db.key")} {
		if d := runtime.decide("relink", "r"+string(rune('0'+i)), "read_file", map[string]any{"path": f}); d.Decision != "deny" {
			t.Errorf("a turn whose link root was re-pointed into the deny reads %s: %s %s (decided_by %s)", f, d.Decision, d.Reason, d.DecidedBy)
		}
		if d := runtime.decide("relink", "w"+string(rune('0'+i)), "apply_patch", patch(f)); d.Decision != "deny" {
			t.Errorf("the same turn patches %s: %s %s (decided_by %s)", f, d.Decision, d.Reason, d.DecidedBy)
		}
	}
}
