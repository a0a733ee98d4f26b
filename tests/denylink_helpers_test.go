package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// vaultProfile writes every workspace root and denies vault there, with
// no question asked: the deny-through-a-link tests' profile.
const vaultProfile = `
[permissions.dev]
extends = ":workspace"
[permissions.dev.filesystem.":workspace_roots"]
"." = "write"
"vault" = "deny"
[permissions.dev.approvals]
policy = "full_access"
`

// vaultTurn is a workspace root holding root/.vault-data/db.key (the
// secret, "s3cret\n") and app/main.go, the links made by links (name ->
// target, relative to root, made in order), a server with vaultProfile
// bound to root and a turn "t" rooted there. exec runs a shell script in
// the turn and returns the answer.
type vaultTurn struct {
	t            *testing.T
	root, secret string
	s            *Server
}

const vaultSecret = "s3cret\n"

func newVaultTurn(t *testing.T, links ...[2]string) *vaultTurn {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root for the kernel sandbox")
	}
	root := workspace(t)
	v := &vaultTurn{t: t, root: root, secret: filepath.Join(root, ".vault-data", "db.key")}
	makeFiles(t, vaultSecret, v.secret, filepath.Join(root, "app", "main.go"))
	for _, l := range links {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, l[0])), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(l[1], filepath.Join(root, l[0])); err != nil {
			t.Fatal(err)
		}
	}
	v.s = devProfileRuntime(t, vaultProfile, root)
	v.s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "t", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"profile": "dev"}, "workspace_root": root, "cwd": root}, 201, nil)
	return v
}

func (v *vaultTurn) exec(id, script string) string {
	st, raw := v.s.Request("POST", "/v1/turns/t/exec", map[string]any{"tool_call_id": id, "cwd": v.root, "timeout_ms": 20000,
		"argv": []string{"sh", "-c", script}})
	v.t.Logf("%s: %d %s", id, st, raw)
	return string(raw)
}

// controls checks that the workspace is read and the secret denied to
// read_file, apply_patch and a command (fatal otherwise).
func (v *vaultTurn) controls() {
	v.t.Helper()
	if d := v.s.decide("t", "c0", "read_file", map[string]any{"path": filepath.Join(v.root, "app", "main.go")}); d.Decision != "allow" {
		v.t.Fatalf("control: the workspace is not read: %+v", d)
	}
	if d := v.s.decide("t", "c1", "read_file", map[string]any{"path": v.secret}); d.Decision != "deny" {
		v.t.Fatalf("control: the deny's target is read: %+v", d)
	}
	if d := v.s.decide("t", "c2", "apply_patch", v.patch()); d.Decision != "deny" {
		v.t.Fatalf("control: the deny's target is patched: %+v", d)
	}
	if out := v.exec("c3", "cat "+v.secret); strings.Contains(out, "s3cret") || !strings.Contains(out, `"ran":true`) {
		v.t.Fatalf("control: a command reads the deny's target")
	}
}

func (v *vaultTurn) patch() map[string]any {
	return map[string]any{"patch": "*** Begin Patch\n*** Update File: " + v.secret + "\n@@\n-s3cret\n+attacker\n*** End Patch\n"}
}

// held reports (t.Errorf) each way the turn reads or writes the secret
// after what; id tells the decisions and the command apart.
func (v *vaultTurn) held(id, after string) {
	v.t.Helper()
	if d := v.s.decide("t", "r"+id, "read_file", map[string]any{"path": v.secret}); d.Decision != "deny" {
		v.t.Errorf("after %s, the turn reads %s: %s %s", after, v.secret, d.Decision, d.Reason)
	}
	if d := v.s.decide("t", "w"+id, "apply_patch", v.patch()); d.Decision != "deny" {
		v.t.Errorf("after %s, the turn patches %s: %s %s", after, v.secret, d.Decision, d.Reason)
	}
	if out := v.exec("x"+id, "cat "+v.secret+"; echo attacker > "+v.secret); strings.Contains(out, "s3cret") {
		v.t.Errorf("after %s, a command reads the secret", after)
	}
	if b, _ := os.ReadFile(v.secret); string(b) != vaultSecret {
		v.t.Errorf("after %s, a command wrote the secret: %q", after, b)
	}
}
