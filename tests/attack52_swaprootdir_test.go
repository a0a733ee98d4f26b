package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack52SwappedRootDirIntoRequiredDeny: the variant of
// TestAttack52RelinkWorkspaceRootIntoRequiredDeny with no link at the
// start (nothing in StartTurn.RootLinks): the workspace root <A>/x is a
// directory when the turn starts, and is then renamed away and replaced by
// a symlink x -> vault (from a second turn rooted at <A>, where the vault
// itself stays denied: making a link to it is not). The root's grant is
// taken where x leads when the view is built: a write on <A>/vault, which
// no entry or rule covers. Control: before the swap the vault is denied.
func TestAttack52SwappedRootDirIntoRequiredDeny(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root for the kernel sandbox")
	}
	root := workspace(t)
	const orig = "s3cret\n"
	secret := filepath.Join(root, "vault", "prod.key")
	x := filepath.Join(root, "x")
	makeFiles(t, orig, secret, filepath.Join(x, "prod.key"))
	runtime := devProfileRuntime(t, `
[permissions.dev]
extends = ":workspace"
[permissions.dev.approvals]
policy = "full_access"
`, root, `required_deny = [":workspace_roots/vault"]`)
	body := map[string]any{"turn_id": "t", "workspace_id": "ws", "thread_id": "th", "permission_profile": map[string]any{"profile": "dev"},
		"workspace_root": x, "cwd": x}
	if st, raw := runtime.Request("POST", "/v1/turns", body); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, raw)
	}
	if d := runtime.decide("t", "c0", "read_file", map[string]any{"path": secret}); d.Decision != "deny" {
		t.Fatalf("control: before the swap the turn reads %s: %+v", secret, d)
	}
	if err := os.Rename(x, x+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("vault", x); err != nil {
		t.Fatal(err)
	}
	if d := runtime.decide("t", "r0", "read_file", map[string]any{"path": secret}); d.Decision != "deny" {
		t.Errorf("after the root was swapped for a link into the required deny, the turn reads %s: %s %s", secret, d.Decision, d.Reason)
	}
	st, raw := runtime.Request("POST", "/v1/turns/t/exec", map[string]any{"tool_call_id": "x0", "cwd": x, "timeout_ms": 20000,
		"argv": []string{"sh", "-c", "cat " + secret + "; echo attacker > " + secret}})
	var d decisionAnswer
	json.Unmarshal(raw, &d)
	t.Logf("x0: %d %s", st, raw)
	if strings.Contains(string(raw), "s3cret") {
		t.Errorf("after the swap, a command reads the vault")
	}
	if b, _ := os.ReadFile(secret); string(b) != orig {
		t.Errorf("after the swap, a command wrote the vault: %q", b)
	}
}
