package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestAttack51LinkRootDodgesRequiredDeny: README, profiles: "a root is
// judged where it lies (where it is written and, through a symlink, where
// it leads when the turn starts) ... an operator's required deny relative
// to the roots is expanded there too". capRoots judges a profile key at
// a root's link target (links), but CompileProfile's ancestorDenies
// expands an operator's required deny (":workspace_roots/vault") at the
// anchors of the roots as written only: a root named through a link into
// the denied directory is not denied it.
//
// The operator requires ":workspace_roots/vault" denied and allows the
// repository as a root. The agent makes <repo>/lnk -> vault and starts a
// turn (mode auto_accept_edits: its built-in profile, with the required deny) whose
// workspace root is <repo>/lnk: checkRoots finds it inside allowed_roots
// where it leads; the required deny expands at <repo>/lnk/vault (and at
// <repo>/vault only if that named the root as written); at decision time
// ":workspace_roots" = write at <repo>/lnk becomes <repo>/vault: the
// vault is read and patched.
//
// Controls: a turn rooted at the repository, or at <repo>/vault as
// written, is denied the vault; the honest root's file keeps its write.
func TestAttack51LinkRootDodgesRequiredDeny(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	root := workspace(t)
	cons := filepath.Join(dir, "constraints.toml")
	if err := os.WriteFile(cons, []byte("required_deny = [\":workspace_roots/vault\"]\nallowed_roots = [\""+root+"\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(root, "vault", "prod.key")
	app := filepath.Join(root, "app", "main.go")
	for _, f := range []string{secret, app} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("s3cret\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lnk := filepath.Join(root, "lnk")
	if err := os.Symlink("vault", lnk); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--constraints", cons)
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	start := func(id, wroot string) {
		body := map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
			"permission_profile": map[string]any{"mode": "auto_accept_edits"}, "workspace_root": wroot, "cwd": wroot}
		if st, raw := runtime.Request("POST", "/v1/turns", body); st != http.StatusCreated {
			t.Fatalf("start %s: %d %s", id, st, raw)
		}
	}
	patch := func(file string) map[string]any {
		return map[string]any{"patch": "*** Begin Patch\n*** Update File: " + file + "\n@@\n-s3cret\n+attacker\n*** End Patch\n"}
	}

	// Controls.
	start("repo", root)
	if d := runtime.decide("repo", "c0", "read_file", map[string]any{"path": secret}); d.Decision != "deny" {
		t.Fatalf("control: a turn rooted at the repo reads %s: %+v", secret, d)
	}
	start("vault", filepath.Join(root, "vault"))
	if d := runtime.decide("vault", "c1", "read_file", map[string]any{"path": secret}); d.Decision != "deny" {
		t.Fatalf("control: a turn rooted at the vault as written reads %s: %+v", secret, d)
	}
	start("app", filepath.Join(root, "app"))
	if d := runtime.decide("app", "c2", "apply_patch", patch(app)); d.Decision != "allow" {
		t.Fatalf("control: the app root's file: %+v", d)
	}

	// The attack: the workspace root named through a link to the vault.
	start("lnk", lnk)
	for i, f := range []string{secret, filepath.Join(lnk, "prod.key")} {
		if d := runtime.decide("lnk", "r"+string(rune('0'+i)), "read_file", map[string]any{"path": f}); d.Decision != "deny" {
			t.Errorf("a turn rooted at a link into the required-deny vault reads %s: %s %s (decided_by %s)", f, d.Decision, d.Reason, d.DecidedBy)
		}
		if d := runtime.decide("lnk", "w"+string(rune('0'+i)), "apply_patch", patch(f)); d.Decision != "deny" {
			t.Errorf("the same turn patches %s: %s %s (decided_by %s)", f, d.Decision, d.Reason, d.DecidedBy)
		}
	}
}
