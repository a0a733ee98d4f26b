package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestAttack52LinkedHomeReopenDenied: 778cb74 makes a grant whose path
// passes a symlink reopen no deny covering it (fsView.shadow,
// landlockRules). That is decided per grant, not per pair: when the deny
// passes the very same link (both are written below a home or workspace
// reached through a symlink, as /home -> /var/home on Fedora
// Silverblue/CoreOS, or ~/code -> /mnt/data/code), the grant is the
// profile's own "blocked"/"blocked/allowed" reopen, written inside the
// deny it reopens, and no root was named anywhere the profile did not
// mean. Yet it is now denied, in decisions and in the kernel.
//
// The profile: every workspace root written, its build/ denied, and
// build/out reopened for writing. The workspace root <r>/home/u/app where
// <r>/home -> var/home (the honest layout): build/out/x is denied to
// apply_patch and a command cannot write it. Control: the same root named
// at its canonical path <r>/var/home/u/app writes build/out/x, and
// build/secret stays denied either way.
func TestAttack52LinkedHomeReopenDenied(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root for the kernel sandbox")
	}
	root := workspace(t)
	canonWS := filepath.Join(root, "var", "home", "u", "app")
	out := filepath.Join(canonWS, "build", "out", "x.txt")
	secret := filepath.Join(canonWS, "build", "secret")
	makeFiles(t, "s3cret\n", out, secret)
	if err := os.Symlink("var/home", filepath.Join(root, "home")); err != nil {
		t.Fatal(err)
	}
	linkedWS := filepath.Join(root, "home", "u", "app")
	runtime := devProfileRuntime(t, `
[permissions.dev]
extends = ":workspace"
[permissions.dev.filesystem.":workspace_roots"]
"." = "write"
"build" = "deny"
"build/out" = "write"
[permissions.dev.approvals]
policy = "full_access"
`, root)
	start := func(id, ws string) {
		body := map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
			"permission_profile": map[string]any{"profile": "dev"}, "workspace_root": ws, "cwd": ws}
		if st, raw := runtime.Request("POST", "/v1/turns", body); st != http.StatusCreated {
			t.Fatalf("start %s: %d %s", id, st, raw)
		}
	}
	patch := func(file string) map[string]any {
		return map[string]any{"patch": "*** Begin Patch\n*** Update File: " + file + "\n@@\n-s3cret\n+edited\n*** End Patch\n"}
	}
	exec := func(turnID, ws, file, text string) {
		st, raw := runtime.Request("POST", "/v1/turns/"+turnID+"/exec", map[string]any{"tool_call_id": "x-" + turnID + text, "cwd": ws, "timeout_ms": 20000,
			"argv": []string{"sh", "-c", "echo " + text + " > " + file}})
		var d decisionAnswer
		json.Unmarshal(raw, &d)
		t.Logf("%s exec: %d %s", turnID, st, raw)
	}
	read := func(f string) string { b, _ := os.ReadFile(f); return string(b) }

	// Control: the workspace named at its canonical path.
	start("canon", canonWS)
	if d := runtime.decide("canon", "c0", "apply_patch", patch(filepath.Join(canonWS, "build", "out", "x.txt"))); d.Decision != "allow" {
		t.Fatalf("control: the canonical workspace's build/out: %+v", d)
	}
	if d := runtime.decide("canon", "c1", "read_file", map[string]any{"path": secret}); d.Decision != "deny" {
		t.Fatalf("control: the canonical workspace reads build/secret: %+v", d)
	}
	exec("canon", canonWS, filepath.Join(canonWS, "build", "out", "x.txt"), "canon")
	if got := read(out); got != "canon\n" {
		t.Fatalf("control: a command of the canonical workspace did not write build/out: %q", got)
	}

	// The honest linked home: the same workspace through /home -> var/home.
	start("linked", linkedWS)
	if d := runtime.decide("linked", "l1", "read_file", map[string]any{"path": filepath.Join(linkedWS, "build", "secret")}); d.Decision != "deny" {
		t.Fatalf("control: the linked workspace reads build/secret: %+v", d)
	}
	if d := runtime.decide("linked", "l0", "apply_patch", patch(filepath.Join(linkedWS, "build", "out", "x.txt"))); d.Decision != "allow" {
		t.Errorf("the workspace reached through a symlinked home is denied its own reopened build/out: %s %s (decided_by %s)", d.Decision, d.Reason, d.DecidedBy)
	}
	exec("linked", linkedWS, filepath.Join(linkedWS, "build", "out", "x.txt"), "linked")
	if got := read(out); got != "linked\n" {
		t.Errorf("a command of the workspace reached through a symlinked home cannot write its reopened build/out: %q", got)
	}
}
