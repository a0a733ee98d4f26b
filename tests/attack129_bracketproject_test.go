package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack129_ReadRootInsideBracketNamedProject (medium): the 125 fix
// (dropInsideSensitive) treats a sensitive path holding '*', '?' or '[' as
// a pattern and expands it with filepath.Match, while the kernel's mask and
// the decision-time checker treat a path without '*' literally. Another
// workspace's project whose directory name holds brackets (billing[v2], a
// sensitive entry for app's turn) matches nothing as a pattern ("[v2]" is a
// character class), so an app read root inside it is kept and mounted
// read-only over the mask: app's command reads billing's files, as in
// TestAttack125_AppReadRootInsideForeignProject, which the fix closed for
// plain names.
//
// Controls (labelled): read_file of the file is denied in the same turn;
// the same command in a turn without the read root finds it masked.
func TestAttack129_ReadRootInsideBracketNamedProject(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	base, _ = filepath.EvalSymlinks(base)
	app := filepath.Join(base, "app")
	billing := filepath.Join(base, "billing[v2]")
	ccProject(t, app)
	ccProject(t, billing)
	if err := os.WriteFile(filepath.Join(billing, "src", "key.pem"), []byte("BILLING-PRIVATE-KEY\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"projects": []any{
		map[string]any{"root": app, "workspace_id": "app", "mode": "auto_accept_edits"},
		map[string]any{"root": billing, "workspace_id": "billing", "mode": "supervised"},
	}})
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "claude-code.json")
	if err := os.WriteFile(cfgPath, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
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
	s := StartServer(t, "", "--claude-code-config", cfgPath, "--profiles", profiles)
	agent := roAs(s, roCreate(t, s, "a129br-app", "runtime", "app"))
	start := func(id string, readRoots []string) {
		body := map[string]any{"turn_id": id, "workspace_id": "app", "thread_id": "th-" + id, "workspace_root": app, "cwd": app,
			"permission_profile": map[string]any{"profile": "sbx"}}
		if readRoots != nil {
			body["app_read_roots"] = readRoots
		}
		agent.JSON("POST", "/v1/turns", body, http.StatusCreated, nil)
	}
	target := filepath.Join(billing, "src", "key.pem")
	cat := func(id string) decisionAnswer {
		var d decisionAnswer
		agent.JSON("POST", "/v1/turns/"+id+"/exec", map[string]any{"tool_call_id": "cat", "argv": []string{"/bin/cat", target}, "cwd": app}, http.StatusOK, &d)
		if !d.Ran || d.Result == nil {
			t.Fatalf("premise: turn %s did not run the command: %+v", id, d)
		}
		return d
	}
	// CONTROL: without the read root, the sandbox masks billing's file.
	start("a129br-c", nil)
	if d := cat("a129br-c"); strings.Contains(d.Result.Stdout, "BILLING-PRIVATE-KEY") {
		t.Fatalf("control: billing's file was readable without the read root: %+v", d.Result)
	}
	// ATTACK.
	start("a129br", []string{filepath.Join(billing, "src")})
	// CONTROL: the file tool is denied the same file in the same turn.
	if d := agent.decide("a129br", "rf", "read_file", map[string]any{"path": target}); d.Decision != "deny" {
		t.Fatalf("control: read_file of billing's file: %+v, want deny", d)
	}
	d := cat("a129br")
	t.Logf("cat %s: exit %d %q %q", target, d.Result.ExitCode, d.Result.Stdout, d.Result.Stderr)
	if strings.Contains(d.Result.Stdout, "BILLING-PRIVATE-KEY") {
		t.Errorf("app's turn, given billing's %s as an app read root, read billing's %s in the sandbox without asking anyone, under app's label (its sensitive deny entry for %s held only for the file tools)", filepath.Join(billing, "src"), target, billing)
	}
}
