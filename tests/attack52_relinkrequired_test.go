package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack52RelinkWorkspaceRootIntoRequiredDeny: the operator's
// required deny (":workspace_roots/vault", allowed_roots = [<A>]) is
// expanded at a root's anchors where it names the root or something in
// it (ancestorDenies), and since 8457067 where the root's link leads when
// the turn starts. The workspace root <A>/lnk leads to <A>/app when the
// turn starts: the required deny lies at <A>/lnk/vault (the allowed root's
// <A>/vault names nothing of the root, so it is not expanded), and nothing
// of the turn covers <A>/vault. The agent then points lnk at vault: the
// root's grant is a write on <A>/vault, which no entry or rule denies:
// read_file and apply_patch of the vault's key are allowed, and a command
// reads and writes it. Controls: a turn started with the link already
// pointing there, or rooted at <A>/vault, is denied.
func TestAttack52RelinkWorkspaceRootIntoRequiredDeny(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root for the kernel sandbox")
	}
	root := workspace(t)
	const orig = "s3cret\n"
	secret := filepath.Join(root, "vault", "prod.key")
	makeFiles(t, orig, secret, filepath.Join(root, "app", "prod.key"))
	lnk, bad := filepath.Join(root, "lnk"), filepath.Join(root, "bad")
	if err := os.Symlink("app", lnk); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("vault", bad); err != nil {
		t.Fatal(err)
	}
	runtime := devProfileRuntime(t, `
[permissions.dev]
extends = ":workspace"
[permissions.dev.approvals]
policy = "full_access"
`, root, `required_deny = [":workspace_roots/vault"]`)
	start := func(id, ws string) {
		body := map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id, "permission_profile": map[string]any{"profile": "dev"},
			"workspace_root": ws, "cwd": ws}
		if st, raw := runtime.Request("POST", "/v1/turns", body); st != http.StatusCreated {
			t.Fatalf("start %s: %d %s", id, st, raw)
		}
	}
	patch := func(file string) map[string]any {
		return map[string]any{"patch": "*** Begin Patch\n*** Update File: " + file + "\n@@\n-s3cret\n+attacker\n*** End Patch\n"}
	}
	exec := func(turnID, id, cwd, script string) string {
		st, raw := runtime.Request("POST", "/v1/turns/"+turnID+"/exec", map[string]any{"tool_call_id": id, "cwd": cwd, "timeout_ms": 20000,
			"argv": []string{"sh", "-c", script}})
		var d decisionAnswer
		json.Unmarshal(raw, &d)
		t.Logf("%s: %d %s", id, st, raw)
		return string(raw)
	}
	read := func(f string) string { b, _ := os.ReadFile(f); return string(b) }
	attack := "cat " + secret + "; echo attacker > " + secret

	// Controls.
	for _, ws := range []string{bad, filepath.Join(root, "vault")} {
		id := "c-" + filepath.Base(ws)
		start(id, ws)
		if d := runtime.decide(id, "c0", "read_file", map[string]any{"path": secret}); d.Decision != "deny" {
			t.Fatalf("control: a turn rooted at %s reads the vault: %+v", ws, d)
		}
		if out := exec(id, "c1", ws, attack); strings.Contains(out, "s3cret") || read(secret) != orig {
			t.Fatalf("control: a command of a turn rooted at %s reads or writes the vault", ws)
		}
	}
	start("t", lnk)
	if d := runtime.decide("t", "c0", "read_file", map[string]any{"path": secret}); d.Decision != "deny" {
		t.Fatalf("control: before the re-point the turn reads %s: %+v", secret, d)
	}

	// The attack.
	if err := os.Remove(lnk); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("vault", lnk); err != nil {
		t.Fatal(err)
	}
	for i, f := range []string{secret, filepath.Join(lnk, "prod.key")} {
		if d := runtime.decide("t", "r"+string(rune('0'+i)), "read_file", map[string]any{"path": f}); d.Decision != "deny" {
			t.Errorf("after the workspace root's link moved into the required deny, the turn reads %s: %s %s", f, d.Decision, d.Reason)
		}
		if d := runtime.decide("t", "w"+string(rune('0'+i)), "apply_patch", patch(f)); d.Decision != "deny" {
			t.Errorf("after the workspace root's link moved into the required deny, the turn patches %s: %s %s", f, d.Decision, d.Reason)
		}
	}
	if out := exec("t", "x0", lnk, attack); strings.Contains(out, "s3cret") {
		t.Errorf("after the workspace root's link moved into the required deny, a command reads the vault")
	}
	if got := read(secret); got != orig {
		t.Errorf("after the workspace root's link moved into the required deny, a command wrote the vault: %q", got)
	}
}
