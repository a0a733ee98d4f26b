package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack52RelinkIntoAnchorDeny: 778cb74 makes a linked grant reopen
// no deny entry covering it, but an anchor's deny (the allowed root's
// expansion of ":workspace_roots" "secrets" = deny, which caps a root
// named at <A>/secrets/prod as if the turn were rooted at <A>) is no
// entry unless some root covers it: it exists only in capRoots'
// judgement at the start, of the roots where they led then.
//
// The turn: workspace root <A>/app, project root <A>/lnk -> proj (judged
// there: a write; nothing of the turn covers <A>/secrets). The agent then
// points lnk at secrets/prod: the project root's grant, taken where its
// link leads when the view is built, is a write on <A>/secrets/prod, and
// no deny covers it: read_file and apply_patch of the secret are allowed,
// and a command reads and writes it. Controls: a turn started with the
// link already there, or with the project root named at secrets/prod, is
// denied.
func TestAttack52RelinkIntoAnchorDeny(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root for the kernel sandbox")
	}
	root := workspace(t)
	const orig = "s3cret\n"
	secret := filepath.Join(root, "secrets", "prod", "db.key")
	app := filepath.Join(root, "app")
	makeFiles(t, orig, secret, filepath.Join(root, "proj", "db.key"), filepath.Join(app, "main.go"))
	lnk, bad := filepath.Join(root, "lnk"), filepath.Join(root, "bad")
	if err := os.Symlink("proj", lnk); err != nil {
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
"secrets" = "deny"
[permissions.dev.approvals]
policy = "full_access"
`, root)
	start := func(id string, projectRoots ...string) {
		body := map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id, "permission_profile": map[string]any{"profile": "dev"},
			"workspace_root": app, "cwd": app, "project_roots": projectRoots}
		if st, raw := runtime.Request("POST", "/v1/turns", body); st != http.StatusCreated {
			t.Fatalf("start %s: %d %s", id, st, raw)
		}
	}
	patch := func(file string) map[string]any {
		return map[string]any{"patch": "*** Begin Patch\n*** Update File: " + file + "\n@@\n-s3cret\n+attacker\n*** End Patch\n"}
	}
	exec := func(turnID, id, script string) string {
		st, raw := runtime.Request("POST", "/v1/turns/"+turnID+"/exec", map[string]any{"tool_call_id": id, "cwd": app, "timeout_ms": 20000,
			"argv": []string{"sh", "-c", script}})
		var d decisionAnswer
		json.Unmarshal(raw, &d)
		t.Logf("%s: %d %s", id, st, raw)
		return string(raw)
	}
	read := func(f string) string { b, _ := os.ReadFile(f); return string(b) }
	attack := "cat " + secret + "; echo attacker > " + secret

	// Controls.
	for _, pr := range []string{bad, filepath.Join(root, "secrets", "prod")} {
		id := "c-" + filepath.Base(pr)
		start(id, pr)
		if d := runtime.decide(id, "c0", "read_file", map[string]any{"path": secret}); d.Decision != "deny" {
			t.Fatalf("control: a turn rooted at %s reads the secret: %+v", pr, d)
		}
		if out := exec(id, "c1", attack); strings.Contains(out, "s3cret") || read(secret) != orig {
			t.Fatalf("control: a command of a turn rooted at %s reads or writes the secret", pr)
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
	if err := os.Symlink("secrets/prod", lnk); err != nil {
		t.Fatal(err)
	}
	for i, f := range []string{secret, filepath.Join(lnk, "db.key")} {
		if d := runtime.decide("t", "r"+string(rune('0'+i)), "read_file", map[string]any{"path": f}); d.Decision != "deny" {
			t.Errorf("after the link moved into the allowed root's deny, the turn reads %s: %s %s", f, d.Decision, d.Reason)
		}
		if d := runtime.decide("t", "w"+string(rune('0'+i)), "apply_patch", patch(f)); d.Decision != "deny" {
			t.Errorf("after the link moved into the allowed root's deny, the turn patches %s: %s %s", f, d.Decision, d.Reason)
		}
	}
	if out := exec("t", "x0", attack); strings.Contains(out, "s3cret") {
		t.Errorf("after the link moved into the allowed root's deny, a command reads the secret")
	}
	if got := read(secret); got != orig {
		t.Errorf("after the link moved into the allowed root's deny, a command wrote the secret: %q", got)
	}
}
