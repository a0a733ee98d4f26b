package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestAttack51RelinkedRootExecWritesDeny: the kernel side of
// TestAttack51RelinkedRootReopensDeny. The turn's root <repo>/lnk led to
// app when the turn started (nothing capped); the agent re-points it at
// secrets/prod and runs a command (POST /v1/turns/{id}/exec) that writes
// through the link. The profile denies secrets/ under every workspace
// root, and a turn started with the link already there is refused the
// same write (control); the honest link's own file is written (control).
func TestAttack51RelinkedRootExecWritesDeny(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root for the kernel sandbox")
	}
	dir := t.TempDir()
	profiles := filepath.Join(dir, "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.dev]
extends = ":workspace"
[permissions.dev.filesystem.":workspace_roots"]
"." = "write"
"secrets" = "deny"
[permissions.dev.approvals]
policy = "full_access"
`), 0o600); err != nil {
		t.Fatal(err)
	}
	root := workspace(t)
	cons := filepath.Join(dir, "constraints.toml")
	if err := os.WriteFile(cons, []byte("allowed_profiles = [\"dev\"]\nallowed_roots = [\""+root+"\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const orig = "s3cret\n"
	secret := filepath.Join(root, "secrets", "prod", "db.key")
	app := filepath.Join(root, "app", "db.key")
	for _, f := range []string{secret, app} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(orig), 0o644); err != nil {
			t.Fatal(err)
		}
	}
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
	read := func(f string) string { b, _ := os.ReadFile(f); return string(b) }
	run := func(turnID, file string) {
		st, raw := runtime.Request("POST", "/v1/turns/"+turnID+"/exec", map[string]any{"tool_call_id": "w-" + turnID, "cwd": root, "timeout_ms": 20000,
			"argv": []string{"sh", "-c", "echo attacker > " + file}})
		var d decisionAnswer
		json.Unmarshal(raw, &d)
		t.Logf("%s: %d %s", turnID, st, raw)
	}

	// Controls.
	start("bad", bad)
	run("bad", filepath.Join(bad, "db.key"))
	if got := read(secret); got != orig {
		t.Fatalf("control: a turn rooted at a link into the deny wrote the secret: %q", got)
	}
	start("honest", honest)
	run("honest", filepath.Join(honest, "db.key"))
	if got := read(app); got == orig {
		t.Fatalf("control: the honest link root's file was not written")
	}

	// The attack.
	start("relink", lnk)
	if err := os.Remove(lnk); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("secrets/prod", lnk); err != nil {
		t.Fatal(err)
	}
	run("relink", filepath.Join(lnk, "db.key"))
	if got := read(secret); got != orig {
		t.Errorf("a turn whose link root was re-pointed into the deny after the start wrote the secret from a command: %q", got)
	}
}
