package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack57DenyLinkThroughDotDotRetargeted (fifty-seventh review,
// high): a profile's deny written at a symlink whose target names a
// directory and then ".." (ws/vault -> sub/../.vault-data) is re-pointed by
// one command that replaces the plain directory sub with a link; from then
// on the deny's name leads to a missing path and the secrets' directory is
// an ordinary part of the workspace for read_file, apply_patch and the
// next command.
//
// Why: the fifty-fifth review's fix pins every SYMLINK the lookup of the
// carve-out's path passes (sandbox/rules.go protectedLinks →
// canon.go linksPassed): vault is pinned, but sub is a directory, not a
// link, so it is not reported. The mount chain (mounts.go mountPlan, "The
// chains") pins the directories between a mounted path and the writable
// root — the ancestors of the mask ws/.vault-data and of the pinned link
// ws/vault — and sub is an ancestor of neither: the lookup passes it only
// to leave it again by "..". So `mv sub sub.x; ln -s deep/x sub` succeeds
// while vault stays in place, and vault now resolves to
// ws/deep/.vault-data. The deny is canonicalised afresh at every decision
// and spawn, so it follows there.
//
// Controls: before the swap the secret is denied to read_file, apply_patch
// and a command; removing vault itself is refused (pinned); an ordinary
// workspace file is read.
func TestAttack57DenyLinkThroughDotDotRetargeted(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root for the kernel sandbox")
	}
	root := workspace(t)
	const orig = "s3cret\n"
	secret := filepath.Join(root, ".vault-data", "db.key")
	makeFiles(t, orig, secret, filepath.Join(root, "app", "main.go"), filepath.Join(root, "sub", "README"))
	if err := os.MkdirAll(filepath.Join(root, "deep", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub/../.vault-data", filepath.Join(root, "vault")); err != nil {
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
		t.Fatalf("control: the deny's target is read: %+v", d)
	}
	if d := runtime.decide("t", "c2", "apply_patch", patch); d.Decision != "deny" {
		t.Fatalf("control: the deny's target is patched: %+v", d)
	}
	if out := exec("c3", "cat "+secret); strings.Contains(out, "s3cret") || !strings.Contains(out, `"ran":true`) {
		t.Fatalf("control: a command reads the deny's target")
	}
	exec("c4", "rm vault")
	if _, err := os.Lstat(filepath.Join(root, "vault")); err != nil {
		t.Fatalf("control: the deny's link (pinned) was removed: %v", err)
	}

	// The attack: one command replaces the directory the link's target
	// passes through by "..".
	exec("x0", "mv sub sub.x && ln -s deep/x sub")
	if fi, err := os.Lstat(filepath.Join(root, "sub")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Logf("sub was not replaced (%v): the directory is held", err)
	}
	if d := runtime.decide("t", "r0", "read_file", map[string]any{"path": secret}); d.Decision != "deny" {
		t.Errorf("after a command replaced sub (vault -> sub/../.vault-data), the turn reads %s: %s %s", secret, d.Decision, d.Reason)
	}
	if d := runtime.decide("t", "w0", "apply_patch", patch); d.Decision != "deny" {
		t.Errorf("after a command replaced sub, the turn patches %s: %s %s", secret, d.Decision, d.Reason)
	}
	if out := exec("x1", "cat "+secret+"; echo attacker > "+secret); strings.Contains(out, "s3cret") {
		t.Errorf("after a command replaced sub, a command reads the secret")
	}
	if b, _ := os.ReadFile(secret); string(b) != orig {
		t.Errorf("after a command replaced sub, a command wrote the secret: %q", b)
	}
}
