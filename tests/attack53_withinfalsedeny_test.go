package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack53RootLinkedAcrossAllowedRoots: with two allowed roots, a
// project root named in the first through a symlink that leads into the
// second (a1/proj -> ../a2/proj: both allowed, the link made by the
// person) is accepted at the start (checkRoots judges where it leads, in
// a2) but never granted: the turn cannot read or write its own project
// root, in decisions or from a command.
//
// Why: Constraints.BindRoots (domain/profile_compile.go) sets the entry's
// Within from rootWithin of the root as written (the first allowed root
// holding a1/proj is a1), while sandbox addRule (canon.go) requires the
// root's canonical path (a2/proj) to lie within Within, and drops it
// otherwise; led_to (a2/proj) agrees with where it leads, Within does
// not (the snapshot shows within = a1, led_to = a2/proj).
//
// Control: the same directory named as a2/proj (no link) is read and
// written by the same profile's turn.
//
// Severity: low (false deny).
func TestAttack53RootLinkedAcrossAllowedRoots(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root for the kernel sandbox")
	}
	base := workspace(t)
	a1, a2 := filepath.Join(base, "a1"), filepath.Join(base, "a2")
	file := filepath.Join(a2, "proj", "main.go")
	makeFiles(t, "package main\n", file, filepath.Join(a1, "app", "x.go"))
	lnk := filepath.Join(a1, "proj")
	if err := os.Symlink("../a2/proj", lnk); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	profiles, cons := filepath.Join(dir, "profiles.toml"), filepath.Join(dir, "constraints.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.dev]
extends = ":workspace"
[permissions.dev.filesystem.":workspace_roots"]
"." = "write"
[permissions.dev.approvals]
policy = "full_access"
`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cons, []byte("allowed_profiles = [\"dev\"]\nallowed_roots = [\""+a1+"\", \""+a2+"\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles, "--constraints", cons)
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	start := func(id, projectRoot string) {
		body := map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id, "permission_profile": map[string]any{"profile": "dev"},
			"workspace_root": filepath.Join(a1, "app"), "cwd": filepath.Join(a1, "app"), "project_roots": []string{projectRoot}}
		if st, raw := runtime.Request("POST", "/v1/turns", body); st != http.StatusCreated {
			t.Fatalf("start %s: %d %s", id, st, raw)
		}
	}
	exec := func(turnID, id string) string {
		st, raw := runtime.Request("POST", "/v1/turns/"+turnID+"/exec", map[string]any{"tool_call_id": id, "cwd": filepath.Join(a1, "app"), "timeout_ms": 20000,
			"argv": []string{"sh", "-c", "cat " + file + " && echo ok >> " + file}})
		t.Logf("%s %s: %d %s", turnID, id, st, raw)
		return string(raw)
	}
	start("direct", filepath.Join(a2, "proj"))
	start("linked", lnk)
	// Control.
	if d := runtime.decide("direct", "c0", "read_file", map[string]any{"path": file}); d.Decision != "allow" {
		t.Fatalf("control: the project root named as it lies is not read: %+v", d)
	}
	if out := exec("direct", "c1"); !strings.Contains(out, "package main") {
		t.Fatalf("control: a command does not read its project root named as it lies")
	}
	// The false deny.
	for i, f := range []string{file, filepath.Join(lnk, "main.go")} {
		if d := runtime.decide("linked", "r"+string(rune('0'+i)), "read_file", map[string]any{"path": f}); d.Decision != "allow" {
			t.Errorf("a project root linked from one allowed root into another: read_file %s: %s %s (%s %s)", f, d.Decision, d.Reason, d.Refusal, d.Message)
		}
	}
	if out := exec("linked", "x0"); !strings.Contains(out, "package main") {
		t.Errorf("a project root linked from one allowed root into another: a command does not read it")
	}
}
