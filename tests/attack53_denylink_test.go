package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack53DenyThroughLinkRetargeted: a profile's deny written at a
// name that is a symlink inside the writable workspace (ws/vault ->
// .vault-data, the secrets kept under another name) is canonicalised
// afresh at every decision and spawn, so it covers whatever the name leads
// to now. A command of the turn removes the link (the name is an ordinary
// entry of the writable root: no pin, no mount on it; only its target is
// masked), and from then on the deny lies at the missing ws/vault while
// the secrets' own directory is an ordinary part of the workspace: the
// turn's read_file and apply_patch and its next command read and write
// them.
//
// Why: sandbox addRule (canon.go) canonicalises a deny entry with
// memo.canonical (links followed, now), and mountPlan (mounts.go) masks
// the target and pins nothing on the way for a deny carve (opPinLink is a
// protected path's); led_to (this session's binding of a root to where it
// led when the turn started) binds roots only, not the carve-outs written
// through links inside them.
//
// Controls: before the link is removed the secret is denied to read_file
// and apply_patch and a command cannot read it; an ordinary workspace
// file is read.
//
// Severity: high (the turn reads and writes what the profile's deny
// covered when the turn started, after one command of its own).
func TestAttack53DenyThroughLinkRetargeted(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root for the kernel sandbox")
	}
	root := workspace(t)
	const orig = "s3cret\n"
	secret := filepath.Join(root, ".vault-data", "db.key")
	makeFiles(t, orig, secret, filepath.Join(root, "app", "main.go"))
	if err := os.Symlink(".vault-data", filepath.Join(root, "vault")); err != nil {
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

	// The attack: one command removes the link.
	exec("x0", "rm vault")
	if d := runtime.decide("t", "r0", "read_file", map[string]any{"path": secret}); d.Decision != "deny" {
		t.Errorf("after a command removed the deny's link, the turn reads %s: %s %s", secret, d.Decision, d.Reason)
	}
	if d := runtime.decide("t", "w0", "apply_patch", patch); d.Decision != "deny" {
		t.Errorf("after a command removed the deny's link, the turn patches %s: %s %s", secret, d.Decision, d.Reason)
	}
	if out := exec("x1", "cat "+secret+"; echo attacker > "+secret); strings.Contains(out, "s3cret") {
		t.Errorf("after a command removed the deny's link, a command reads the secret")
	}
	if b, _ := os.ReadFile(secret); string(b) != orig {
		t.Errorf("after a command removed the deny's link, a command wrote the secret: %q", b)
	}
}
