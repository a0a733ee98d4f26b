package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack57OtherTurnRemovesDenyLink (fifty-seventh review, high): the
// link a deny is written through (ws/vault -> .vault-data, the profile's
// `"vault" = "deny"`) is pinned only inside the mount namespace of a
// command of the turn whose profile names it, and only while that command
// runs (sandbox/rules.go protectedLinks → mounts.go opPinLink: a bind
// mount in the helper's private namespace). Between its commands nothing
// holds the link on the host, and a command of ANOTHER turn on the same
// workspace, under another allowed profile that protects the same secret
// by its own path (`".vault-data" = "deny"`: its lookup passes no link, so
// that profile pins nothing — protectedLinks skips From == Path), removes
// vault freely. The first turn's deny is canonicalised afresh at every
// decision and spawn: it now lies at a missing path, and .vault-data is
// an ordinary part of the workspace for that turn's read_file,
// apply_patch and next command. Each profile denies the secret; the
// runtime, picking between them, reads and writes it.
//
// Controls: in turn A (profile dev) the secret is denied to read_file and
// a command, and A's own command cannot remove vault; in turn B (profile
// docs) the secret is denied too.
func TestAttack57OtherTurnRemovesDenyLink(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root for the kernel sandbox")
	}
	v := vaultTurns(t)
	root, secret, orig, runtime, exec, patch := v.root, v.secret, v.orig, v.runtime, v.exec, v.patch
	// Controls.
	if d := runtime.decide("a", "c0", "read_file", map[string]any{"path": filepath.Join(root, "app", "main.go")}); d.Decision != "allow" {
		t.Fatalf("control: the workspace is not read: %+v", d)
	}
	for _, tn := range []string{"a", "b"} {
		if d := runtime.decide(tn, "c1", "read_file", map[string]any{"path": secret}); d.Decision != "deny" {
			t.Fatalf("control: turn %s reads the secret: %+v", tn, d)
		}
		if out := exec(tn, "c2", "cat "+secret); strings.Contains(out, "s3cret") || !strings.Contains(out, `"ran":true`) {
			t.Fatalf("control: a command of turn %s reads the secret", tn)
		}
	}
	exec("a", "c3", "rm vault")
	if _, err := os.Lstat(filepath.Join(root, "vault")); err != nil {
		t.Fatalf("control: turn a's own command removed its pinned link: %v", err)
	}

	// The attack: turn b's command removes the link turn a's deny is
	// written through.
	exec("b", "x0", "rm vault")
	if d := runtime.decide("a", "r0", "read_file", map[string]any{"path": secret}); d.Decision != "deny" {
		t.Errorf("after turn b's command removed vault, turn a reads %s: %s %s", secret, d.Decision, d.Reason)
	}
	if d := runtime.decide("a", "w0", "apply_patch", patch); d.Decision != "deny" {
		t.Errorf("after turn b's command removed vault, turn a patches %s: %s %s", secret, d.Decision, d.Reason)
	}
	if out := exec("a", "x1", "cat "+secret+"; echo attacker > "+secret); strings.Contains(out, "s3cret") {
		t.Errorf("after turn b's command removed vault, a command of turn a reads the secret")
	}
	if b, _ := os.ReadFile(secret); string(b) != orig {
		t.Errorf("after turn b's command removed vault, a command of turn a wrote the secret: %q", b)
	}
}

// vaultTurns starts a server with two allowed profiles that each deny the
// secret ws/.vault-data/db.key, dev through the link ws/vault (and dev2,
// dev narrowed) and docs by its own path, and turn a under dev and b under
// docs on the same workspace.
func vaultTurns(t *testing.T) (v vaultSetup) {
	t.Helper()
	root := workspace(t)
	orig := "s3cret\n"
	secret := filepath.Join(root, ".vault-data", "db.key")
	makeFiles(t, orig, secret, filepath.Join(root, "app", "main.go"))
	if err := os.Symlink(".vault-data", filepath.Join(root, "vault")); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	profiles, cons := filepath.Join(dir, "profiles.toml"), filepath.Join(dir, "constraints.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.dev]
extends = ":workspace"
[permissions.dev.filesystem.":workspace_roots"]
"." = "write"
"vault" = "deny"
[permissions.dev.approvals]
policy = "full_access"

[permissions.dev2]
extends = "dev"
[permissions.dev2.filesystem.":workspace_roots"]
"app" = "read"

[permissions.docs]
extends = ":workspace"
[permissions.docs.filesystem.":workspace_roots"]
"." = "write"
".vault-data" = "deny"
[permissions.docs.approvals]
policy = "full_access"
`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cons, []byte("allowed_profiles = [\"dev\", \"dev2\", \"docs\"]\nallowed_roots = [\""+root+"\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles, "--constraints", cons)
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	for _, tn := range [][2]string{{"a", "dev"}, {"b", "docs"}} {
		runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": tn[0], "workspace_id": "ws", "thread_id": "th-" + tn[0],
			"permission_profile": map[string]any{"profile": tn[1]}, "workspace_root": root, "cwd": root}, 201, nil)
	}
	exec := func(turn, id, script string) string {
		st, raw := runtime.Request("POST", "/v1/turns/"+turn+"/exec", map[string]any{"tool_call_id": id, "cwd": root, "timeout_ms": 20000,
			"argv": []string{"sh", "-c", script}})
		t.Logf("%s/%s: %d %s", turn, id, st, raw)
		return string(raw)
	}
	patch := map[string]any{"patch": "*** Begin Patch\n*** Update File: " + secret + "\n@@\n-s3cret\n+attacker\n*** End Patch\n"}
	return vaultSetup{root: root, secret: secret, orig: orig, admin: s, runtime: runtime, exec: exec, patch: patch}
}

type vaultSetup struct {
	root, secret, orig string
	admin, runtime     *Server
	exec               func(turn, id, script string) string
	patch              map[string]any
}

// TestDenyLinkBindingCarried: where turn a's deny led at its start (the
// snapshot's copy at .vault-data) is kept when a's profile changes after
// another turn removed the link, and is given to a's child turn; a
// snapshot that no longer denies vault keeps no copy.
func TestDenyLinkBindingCarried(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root for the kernel sandbox")
	}
	v := vaultTurns(t)
	v.exec("b", "x0", "rm vault")
	if _, err := os.Lstat(filepath.Join(v.root, "vault")); !os.IsNotExist(err) {
		t.Fatalf("control: turn b's command did not remove vault: %v", err)
	}
	v.admin.JSON("POST", "/v1/turns/a/permissions", map[string]any{"permission_profile": map[string]any{"profile": "dev2"}}, 200, nil)
	if d := v.runtime.decide("a", "c0", "read_file", map[string]any{"path": filepath.Join(v.root, "app", "main.go")}); d.Decision != "allow" {
		t.Fatalf("control: the workspace is not read under dev2: %+v", d)
	}
	if d := v.runtime.decide("a", "r0", "read_file", map[string]any{"path": v.secret}); d.Decision != "deny" {
		t.Errorf("after a profile change, turn a reads the secret its start bound: %s %s", d.Decision, d.Reason)
	}
	v.runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "a1", "workspace_id": "ws", "thread_id": "th-a1", "parent_turn_id": "a",
		"workspace_root": v.root, "cwd": v.root}, 201, nil)
	if d := v.runtime.decide("a1", "r0", "read_file", map[string]any{"path": v.secret}); d.Decision != "deny" {
		t.Errorf("turn a's child reads the secret its parent's start bound: %s %s", d.Decision, d.Reason)
	}
	if out := v.exec("a1", "x1", "cat "+v.secret+"; echo attacker > "+v.secret); strings.Contains(out, "s3cret") {
		t.Errorf("a command of turn a's child reads the secret")
	}
	if b, _ := os.ReadFile(v.secret); string(b) != v.orig {
		t.Errorf("a command of turn a's child wrote the secret: %q", b)
	}
	// Control: turn b's profile denies .vault-data by its own path and
	// binds nothing: nothing of a's is in b's snapshot.
	var tb struct {
		Snapshot struct {
			Sandbox struct {
				Filesystem struct {
					Entries []struct {
						LinkedFrom string `json:"linked_from"`
					} `json:"entries"`
				} `json:"filesystem"`
			} `json:"sandbox"`
		} `json:"snapshot"`
	}
	v.runtime.JSON("GET", "/v1/turns/b", nil, 200, &tb)
	for _, e := range tb.Snapshot.Sandbox.Filesystem.Entries {
		if e.LinkedFrom != "" {
			t.Errorf("turn b's snapshot holds a copy from %s", e.LinkedFrom)
		}
	}
}
