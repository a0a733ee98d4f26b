package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack52RelinkIntoGlobDeny: TestLinkedRootRetargetedReopensNothing
// with the deny written as a glob (":workspace_roots" "**/secrets" =
// deny). 778cb74 stops a linked grant from reopening a deny entry (a
// carve of the sandbox's view); a glob deny is no entry: decisions
// resolve it with the rules, on the canonical path, where the project
// root's own rule (<repo>/lnk = write, canonicalised where the link leads
// now) is more specific than the glob's match at <repo>/secrets.
//
// The project root <repo>/lnk leads to <repo>/app when the turn starts
// (judged there: a write); the agent then points it at secrets/prod.
// Controls: before the re-point, the secret is denied; a turn started
// with the link already there is denied.
func TestAttack52RelinkIntoGlobDeny(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root for the kernel sandbox")
	}
	root := workspace(t)
	const orig = "s3cret\n"
	secret := filepath.Join(root, "secrets", "prod", "db.key")
	makeFiles(t, orig, secret, filepath.Join(root, "app", "db.key"))
	lnk, bad := filepath.Join(root, "lnk"), filepath.Join(root, "bad")
	if err := os.Symlink("app", lnk); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("secrets/prod", bad); err != nil {
		t.Fatal(err)
	}
	runtime := devProfileRuntime(t, `
[permissions.dev]
extends = ":workspace"
[permissions.dev.filesystem.":workspace_roots"]
"." = "write"
"**/secrets" = "deny"
[permissions.dev.approvals]
policy = "full_access"
`, root)
	start := func(id string, projectRoots ...string) {
		body := map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id, "permission_profile": map[string]any{"profile": "dev"},
			"workspace_root": root, "cwd": root, "project_roots": projectRoots}
		if st, raw := runtime.Request("POST", "/v1/turns", body); st != http.StatusCreated {
			t.Fatalf("start %s: %d %s", id, st, raw)
		}
	}
	patch := func(file string) map[string]any {
		return map[string]any{"patch": "*** Begin Patch\n*** Update File: " + file + "\n@@\n-s3cret\n+attacker\n*** End Patch\n"}
	}
	exec := func(turnID, id, script string) string {
		st, raw := runtime.Request("POST", "/v1/turns/"+turnID+"/exec", map[string]any{"tool_call_id": id, "cwd": root, "timeout_ms": 20000,
			"argv": []string{"sh", "-c", script}})
		var d decisionAnswer
		json.Unmarshal(raw, &d)
		t.Logf("%s: %d %s", id, st, raw)
		return string(raw)
	}
	read := func(f string) string { b, _ := os.ReadFile(f); return string(b) }

	// Controls.
	start("bad", bad)
	if d := runtime.decide("bad", "b0", "read_file", map[string]any{"path": secret}); d.Decision != "deny" {
		t.Fatalf("control: a turn rooted at a link into the glob deny reads it: %+v", d)
	}
	start("t", lnk)
	if d := runtime.decide("t", "c0", "read_file", map[string]any{"path": secret}); d.Decision != "deny" {
		t.Fatalf("control: before the re-point the turn reads %s: %+v", secret, d)
	}

	// The attack.
	if err := os.Remove(lnk); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("secrets/prod", lnk); err != nil {
		t.Fatal(err)
	}
	for i, f := range []string{secret, filepath.Join(lnk, "db.key")} {
		if d := runtime.decide("t", "r"+string(rune('0'+i)), "read_file", map[string]any{"path": f}); d.Decision != "deny" {
			t.Errorf("after the link moved into the glob deny, the turn reads %s: %s %s", f, d.Decision, d.Reason)
		}
		if d := runtime.decide("t", "w"+string(rune('0'+i)), "apply_patch", patch(f)); d.Decision != "deny" {
			t.Errorf("after the link moved into the glob deny, the turn patches %s: %s %s", f, d.Decision, d.Reason)
		}
	}
	if out := exec("t", "x0", "cat "+filepath.Join(lnk, "db.key")+"; echo attacker > "+filepath.Join(lnk, "db.key")); strings.Contains(out, "s3cret") {
		t.Errorf("after the link moved into the glob deny, a command reads the secret")
	}
	if got := read(secret); got != orig {
		t.Errorf("after the link moved into the glob deny, a command wrote the secret: %q", got)
	}
}
