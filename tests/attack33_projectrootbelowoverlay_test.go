package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestAttack33ProjectRootBelowOverlayWritesIt: the thirty-second review's
// project-root bypass, one level down. The operator's profile writes the
// workspace with node_modules as an overlay (nothing a command writes
// there reaches the host's directory, which the person's next npm run
// executes). The fix makes an overlay win a tie with a root the runtime
// names AT the overlay's path; but the runtime, holding its credential,
// names a project root BELOW it (node_modules/left-pad), inside
// allowed_roots. The ":project_roots" write rule is more specific than the
// overlay's, the entries hold a writable project root nested in the overlay,
// and the command writes the host's node_modules/left-pad/index.js.
//
// Controls: a turn without the project root writes its own copy only; the
// constraints refuse a root outside the workspace.
func TestAttack33ProjectRootBelowOverlayWritesIt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	profiles := filepath.Join(dir, "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.npm]
extends = ":workspace"
[permissions.npm.filesystem.":workspace_roots"]
"node_modules" = "overlay"
[permissions.npm.approvals]
policy = "full_access"
`), 0o600); err != nil {
		t.Fatal(err)
	}
	root := workspace(t)
	cons := filepath.Join(dir, "constraints.toml")
	if err := os.WriteFile(cons, []byte("allowed_profiles = [\"npm\"]\nallowed_roots = [\""+root+"\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles, "--constraints", cons)
	nm := filepath.Join(root, "node_modules", "left-pad")
	if err := os.MkdirAll(nm, 0o755); err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(nm, "index.js")
	const orig = "module.exports = (s) => s;\n"
	if err := os.WriteFile(index, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	run := func(turnID string) decisionAnswer {
		st, raw := runtime.Request("POST", "/v1/turns/"+turnID+"/exec", map[string]any{"tool_call_id": "w", "cwd": root, "timeout_ms": 20000,
			"argv": []string{"sh", "-c", "echo 'require(\"child_process\").exec(\"id\")' > " + index + " && echo wrote"}})
		var d decisionAnswer
		json.Unmarshal(raw, &d)
		t.Logf("%s: %d %s", turnID, st, raw)
		return d
	}
	hostFile := func() string {
		b, _ := os.ReadFile(index)
		return string(b)
	}
	start := func(id string, projectRoots ...string) (int, []byte) {
		body := map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
			"permission_profile": map[string]any{"profile": "npm"}, "workspace_root": root}
		if projectRoots != nil {
			body["project_roots"] = projectRoots
		}
		return runtime.Request("POST", "/v1/turns", body)
	}
	// Control: a root outside the workspace is refused.
	if st, raw := start("out", t.TempDir()); st != http.StatusBadRequest {
		t.Fatalf("control: a project root outside allowed_roots: %d %s", st, raw)
	}
	// Control: the profile's turn writes its own copy only.
	if st, raw := start("plain"); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, raw)
	}
	if d := run("plain"); !d.Ran || d.Result == nil || d.Result.Stdout != "wrote\n" || hostFile() != orig {
		t.Fatalf("control: the turn's command: %+v, host file %q", d, hostFile())
	}
	// The attack: a project root below the overlay directory.
	if st, raw := start("pr", nm); st != http.StatusCreated {
		t.Fatalf("start with node_modules/left-pad as a project root: %d %s", st, raw)
	}
	if d := runtime.decide("pr", "wr", "apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Update File: " + index + "\n@@\n-module.exports = (s) => s;\n+x\n*** End Patch\n"}); d.Decision == "allow" {
		t.Logf("the apply_patch of the file is allowed too: %+v", d)
	}
	run("pr")
	if got := hostFile(); got != orig {
		t.Errorf("a turn of the profile whose project_roots name a directory inside its overlay directory wrote the host's %s: %q", index, got)
	}
}
