package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack55SensitiveOneLinkRemoved: a built-in sensitive credential
// store that is not also a protected name (/home/*/.gnupg, like .netrc,
// .config/gcloud, .kube/config, .docker/config.json, .git-credentials,
// .pgpass, .npmrc: denied to every restricted turn) and that is ONE symlink
// inside a writable root (a home the operator's allowed_roots allow as a
// workspace, laid out by a dotfiles manager: ~/.gnupg -> dotfiles/gnupg)
// is followed at every check, so the keys' own directory is denied while
// the link stands. The link is not pinned while a command runs: one
// command removes it, from then on the sensitive entry lies at a missing
// path and dotfiles/gnupg is an ordinary part of the workspace: the turn's
// read_file and its next command read the private key, and apply_patch
// writes it.
//
// Why: this session's fix (sandbox/rules.go protectedLinks) pins the links
// on the way to carve-outs of kind PathProtected (their own name only) and
// PathExplicit only: `if c.Kind != domain.PathExplicit ... continue` skips
// every PathSensitive carve-out (canon.go buildFSView adds them with
// addRule, canonicalised afresh at each spawn, and the decision checker's
// sensitive rules resolve their links at each decision). .ssh and .aws
// are held only because they are protected names too. The fifty-third
// review's single-link attack, on the entries every turn carries.
//
// Controls: before the link is removed the key is denied to read_file and
// a command cannot read it; an ordinary workspace file is read.
//
// Severity: high (the agent reads and writes the user's GnuPG private
// keys, which every restricted turn is denied, after one command of its
// own).
func TestAttack55SensitiveOneLinkRemoved(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for the kernel sandbox and a home under /home")
	}
	home, err := os.MkdirTemp("/home", "a55gpg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	if err := os.Chmod(home, 0o755); err != nil {
		t.Fatal(err)
	}
	const orig = "PRIVATE KEY\n"
	key := filepath.Join(home, "dotfiles", "gnupg", "private-keys-v1.d", "key.key")
	makeFiles(t, orig, key)
	makeFiles(t, "package main\n", filepath.Join(home, "proj", "main.go"))
	if err := os.Symlink("dotfiles/gnupg", filepath.Join(home, ".gnupg")); err != nil {
		t.Fatal(err)
	}
	runtime := devProfileRuntime(t, `
[permissions.dev]
extends = ":workspace"
[permissions.dev.filesystem.":workspace_roots"]
"." = "write"
[permissions.dev.approvals]
policy = "full_access"
`, home)
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "t", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"profile": "dev"}, "workspace_root": home, "cwd": home}, 201, nil)
	exec := func(id, script string) string {
		st, raw := runtime.Request("POST", "/v1/turns/t/exec", map[string]any{"tool_call_id": id, "cwd": home, "timeout_ms": 20000,
			"argv": []string{"sh", "-c", script}})
		t.Logf("%s: %d %s", id, st, raw)
		return string(raw)
	}
	patch := map[string]any{"patch": "*** Begin Patch\n*** Update File: " + key + "\n@@\n-PRIVATE KEY\n+attacker\n*** End Patch\n"}

	// Controls.
	if d := runtime.decide("t", "c0", "read_file", map[string]any{"path": filepath.Join(home, "proj", "main.go")}); d.Decision != "allow" {
		t.Fatalf("control: the workspace is not read: %+v", d)
	}
	if d := runtime.decide("t", "c1", "read_file", map[string]any{"path": key}); d.Decision != "deny" {
		t.Fatalf("control: the key behind ~/.gnupg is read while the link stands: %+v", d)
	}
	if out := exec("c2", "cat "+key+"; cat proj/main.go"); strings.Contains(out, "PRIVATE") || !strings.Contains(out, "package main") {
		t.Fatalf("control: a command reads the key behind ~/.gnupg while the link stands")
	}

	// The attack: one command removes the link.
	exec("x0", "rm .gnupg")
	if d := runtime.decide("t", "r0", "read_file", map[string]any{"path": key}); d.Decision != "deny" {
		t.Errorf("after a command removed ~/.gnupg, the turn reads %s: %s %s", key, d.Decision, d.Reason)
	}
	if d := runtime.decide("t", "w0", "apply_patch", patch); d.Decision != "deny" {
		t.Errorf("after a command removed ~/.gnupg, the turn patches %s: %s %s", key, d.Decision, d.Reason)
	}
	if out := exec("x1", "cat "+key); strings.Contains(out, "PRIVATE") {
		t.Errorf("after a command removed ~/.gnupg, a command reads the private key")
	}
}
