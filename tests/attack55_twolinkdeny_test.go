package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack55DenyThroughSecondLinkRetargeted: a profile's deny written at
// a symlink that leads to the secrets through a SECOND symlink (ws/vault ->
// current, ws/current -> .vault-data: the usual "current release" layout)
// pins only the first link while a command runs. The second link lies in
// the writable workspace like any file: one command removes it (or
// re-points it), from then on the deny's name leads to a missing path, and
// the secrets' own directory is an ordinary part of the workspace: the
// turn's read_file, apply_patch and its next command read and write them.
//
// Why: sandbox/rules.go protectedLinks walks only the components of the
// path as written (c.From: ws/vault) and pins those that are links; the
// links met while resolving a link's TARGET text (ws/current, or any
// directory named in it, e.g. vault -> sub/../.vault-data with sub
// replaced by a link) are not components of From and are never pinned.
// The mount chain (mounts.go mountPlan) pins the directories between the
// mask (ws/.vault-data) and the writable root, never ws/current. The deny
// is canonicalised afresh at every decision and spawn (sandbox addRule,
// the engine's checks), so it follows the re-pointed chain.
//
// Controls: before the second link is removed the secret is denied to
// read_file and apply_patch and a command cannot read it; removing the
// first link (the fifty-third review's attack) is refused; an ordinary
// workspace file is read.
//
// Severity: high (the turn reads and writes what the profile's deny
// covered when the turn started, after one command of its own).
func TestAttack55DenyThroughSecondLinkRetargeted(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root for the kernel sandbox")
	}
	root := workspace(t)
	const orig = "s3cret\n"
	secret := filepath.Join(root, ".vault-data", "db.key")
	makeFiles(t, orig, secret, filepath.Join(root, "app", "main.go"))
	if err := os.Symlink("current", filepath.Join(root, "vault")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".vault-data", filepath.Join(root, "current")); err != nil {
		t.Fatal(err)
	}
	runtime := devProfileRuntime(t, `
[permissions.dev]
extends = ":workspace"
[permissions.dev.filesystem.":workspace_roots"]
"." = "write"
"vault" = "deny"
[permissions.dev.approvals]
policy = "full_access"
`, root)
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "t", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"profile": "dev"}, "workspace_root": root, "cwd": root}, 201, nil)
	exec := func(id, script string) string {
		st, raw := runtime.Request("POST", "/v1/turns/t/exec", map[string]any{"tool_call_id": id, "cwd": root, "timeout_ms": 20000,
			"argv": []string{"sh", "-c", script}})
		t.Logf("%s: %d %s", id, st, raw)
		return string(raw)
	}
	patch := map[string]any{"patch": "*** Begin Patch\n*** Update File: " + secret + "\n@@\n-s3cret\n+attacker\n*** End Patch\n"}

	// Controls.
	if d := runtime.decide("t", "c0", "read_file", map[string]any{"path": filepath.Join(root, "app", "main.go")}); d.Decision != "allow" {
		t.Fatalf("control: the workspace is not read: %+v", d)
	}
	if d := runtime.decide("t", "c1", "read_file", map[string]any{"path": secret}); d.Decision != "deny" {
		t.Fatalf("control: the deny's target is read before the link is removed: %+v", d)
	}
	if d := runtime.decide("t", "c2", "apply_patch", patch); d.Decision != "deny" {
		t.Fatalf("control: the deny's target is patched before the link is removed: %+v", d)
	}
	if out := exec("c3", "cat "+secret); strings.Contains(out, "s3cret") || !strings.Contains(out, `"ran":true`) {
		t.Fatalf("control: a command reads the deny's target before the link is removed")
	}
	exec("c4", "rm vault")
	if _, err := os.Lstat(filepath.Join(root, "vault")); err != nil {
		t.Fatalf("control: the first link (pinned) was removed: %v", err)
	}

	// The attack: one command removes the second link.
	exec("x0", "rm current")
	if d := runtime.decide("t", "r0", "read_file", map[string]any{"path": secret}); d.Decision != "deny" {
		t.Errorf("after a command removed the deny's second link, the turn reads %s: %s %s", secret, d.Decision, d.Reason)
	}
	if d := runtime.decide("t", "w0", "apply_patch", patch); d.Decision != "deny" {
		t.Errorf("after a command removed the deny's second link, the turn patches %s: %s %s", secret, d.Decision, d.Reason)
	}
	if out := exec("x1", "cat "+secret+"; echo attacker > "+secret); strings.Contains(out, "s3cret") {
		t.Errorf("after a command removed the deny's second link, a command reads the secret")
	}
	if b, _ := os.ReadFile(secret); string(b) != orig {
		t.Errorf("after a command removed the deny's second link, a command wrote the secret: %q", b)
	}
}
