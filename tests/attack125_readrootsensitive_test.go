package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack125_AppReadRootInsideSensitiveHome (medium): the mechanism of
// TestAttack125_AppReadRootInsideForeignProject is not the foreign
// projects' alone: an app read root (never judged) inside any sensitive
// entry (here /home/USER/.ssh, one of the built-in credential stores) is
// mounted read-only over the sensitive mask, and the command reads the
// key, while read_file of it is denied. The turn is one the runtime
// credential starts itself, under an operator's profile that runs commands
// in a workspace sandbox without asking.
//
// Controls (labelled): read_file of the key is denied in the same turn;
// without the read root the same command finds the key masked.
//
// The test makes a home under /home (removed after it).
func TestAttack125_AppReadRootInsideSensitiveHome(t *testing.T) {
	attack125RootInsideSensitive(t, "app_read_roots")
}

// TestAttack125_ProjectRootInsideSensitiveHome: the same with a writable
// project root (project_roots [/home/USER/.ssh/keys]): the command reads
// the key (and could write there).
//
// Controls: as above (read_file denied in the same turn; masked without the
// root).
func TestAttack125_ProjectRootInsideSensitiveHome(t *testing.T) {
	attack125RootInsideSensitive(t, "project_roots")
}

func attack125RootInsideSensitive(t *testing.T, field string) {
	home, err := os.MkdirTemp("/home", "a125user")
	if err != nil {
		t.Skip("cannot make a home under /home:", err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	keys := filepath.Join(home, ".ssh", "keys")
	if err := os.MkdirAll(keys, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(keys, "id_ed25519"), []byte("OPENSSH-PRIVATE-KEY-a125\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	profiles := filepath.Join(dir, "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.sbx]
[permissions.sbx.filesystem]
":minimal" = "read"
":workspace_roots" = "write"
":app_read_roots" = "read"
[permissions.sbx.approvals]
policy = "full_access"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles)
	agent := roAs(s, s.credential("agent", "runtime"))
	ws := workspace(t)
	target := filepath.Join(keys, "id_ed25519")
	start := func(id string, readRoots []string) {
		body := map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id, "workspace_root": ws, "cwd": ws,
			"permission_profile": map[string]any{"profile": "sbx"}}
		if readRoots != nil {
			body[field] = readRoots
		}
		agent.JSON("POST", "/v1/turns", body, http.StatusCreated, nil)
	}
	cat := func(id string) decisionAnswer {
		var d decisionAnswer
		agent.JSON("POST", "/v1/turns/"+id+"/exec", map[string]any{"tool_call_id": "cat", "argv": []string{"/bin/cat", target}, "cwd": ws}, http.StatusOK, &d)
		if !d.Ran || d.Result == nil {
			t.Fatalf("premise: turn %s did not run the command: %+v", id, d)
		}
		return d
	}
	// CONTROL: without the read root the key is masked.
	start("a125rs-c", nil)
	if d := cat("a125rs-c"); strings.Contains(d.Result.Stdout, "OPENSSH-PRIVATE-KEY") {
		t.Fatalf("control: the key was readable without the read root: %+v", d.Result)
	}
	// ATTACK.
	start("a125rs", []string{keys})
	// CONTROL: read_file of the key is denied in the same turn.
	if d := agent.decide("a125rs", "rf", "read_file", map[string]any{"path": target}); d.Decision != "deny" {
		t.Fatalf("control: read_file of the key: %+v, want deny", d)
	}
	d := cat("a125rs")
	t.Logf("cat %s: exit %d %q %q", target, d.Result.ExitCode, d.Result.Stdout, d.Result.Stderr)
	if strings.Contains(d.Result.Stdout, "OPENSSH-PRIVATE-KEY") {
		t.Errorf("a turn the runtime credential started with %s [%s] read %s (a sensitive credential store, masked without the read root, denied to read_file) in the sandbox without asking anyone", field, keys, target)
	}
}
