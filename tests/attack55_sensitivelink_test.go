package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack55SensitiveLinkRemoved: a built-in sensitive credential store
// (/home/*/.ssh, denied to every restricted turn; also a protected name of
// a root, read) reached through TWO symlinks inside a writable root (a
// home the operator's allowed_roots allow as a workspace, laid out by a
// dotfiles manager: ~/.ssh -> current/ssh, ~/current -> dotfiles) is
// followed at every check, so the keys' own directory is denied while the
// links stand. ~/.ssh itself is pinned while a command runs (rm: EBUSY),
// ~/current is not: one command removes it, from then on the sensitive
// and protected entries lie at a missing path and dotfiles/ssh is an
// ordinary part of the workspace: the turn's read_file and its next
// command read the private key, and apply_patch writes it.
//
// Why: sandbox/rules.go protectedLinks pins, for a PathProtected entry,
// only the entry's own name when it is a link (add(c.From)), and skips
// PathSensitive entries altogether (`c.Kind != domain.PathExplicit`);
// neither walks the links met while resolving a link's target text. The
// sensitive entry (canon.go buildFSView, sensitiveMatches + addRule) and
// the checker's sensitive rules are canonicalised afresh at each spawn and
// decision, so they follow the re-pointed chain to nothing. No profile
// deny is needed: these are the entries every turn carries.
//
// Controls: before the link is removed the key is denied to read_file and
// a command cannot read it (and ~/.ssh cannot be removed); an ordinary
// workspace file is read.
//
// Severity: high (the agent reads and writes the user's SSH private key,
// which every restricted turn is denied, after one command of its own).
func TestAttack55SensitiveLinkRemoved(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for the kernel sandbox and a home under /home")
	}
	home, err := os.MkdirTemp("/home", "a55sens")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	if err := os.Chmod(home, 0o755); err != nil {
		t.Fatal(err)
	}
	const orig = "PRIVATE KEY\n"
	key := filepath.Join(home, "dotfiles", "ssh", "id_ed25519")
	makeFiles(t, orig, key)
	makeFiles(t, "package main\n", filepath.Join(home, "proj", "main.go"))
	if err := os.Symlink("dotfiles", filepath.Join(home, "current")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("current/ssh", filepath.Join(home, ".ssh")); err != nil {
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
		t.Fatalf("control: the key behind ~/.ssh is read while the link stands: %+v", d)
	}
	if out := exec("c2", "cat "+key+"; cat proj/main.go"); strings.Contains(out, "PRIVATE") || !strings.Contains(out, "package main") {
		t.Fatalf("control: a command reads the key behind ~/.ssh while the link stands")
	}

	// The attack: one command removes the link.
	if out := exec("c3", "rm .ssh"); !strings.Contains(out, "busy") {
		t.Fatalf("control: ~/.ssh is not pinned")
	}
	exec("x0", "rm current")
	if d := runtime.decide("t", "r0", "read_file", map[string]any{"path": key}); d.Decision != "deny" {
		t.Errorf("after a command removed ~/current, the turn reads %s: %s %s", key, d.Decision, d.Reason)
	}
	if d := runtime.decide("t", "w0", "apply_patch", patch); d.Decision != "deny" {
		t.Errorf("after a command removed ~/current, the turn patches %s: %s %s", key, d.Decision, d.Reason)
	}
	if out := exec("x1", "cat "+key); strings.Contains(out, "PRIVATE") {
		t.Errorf("after a command removed ~/current, a command reads the private key")
	}
}
