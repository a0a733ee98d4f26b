package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestAttack32ChildRootedInOverlayWritesIt: README, "Permission
// profiles": a directory the host's own tools trust is granted "overlay":
// "each command sees it as an overlay whose lower layer is the directory
// ... nothing it writes reaches the directory, the person or another
// command". A workspace's node_modules is such a directory (the person's
// next npm run executes what it holds), so the operator's profile writes
// the workspace with node_modules as an overlay. The agent, holding the
// runtime's credential, starts a child turn of its turn whose
// workspace_root is node_modules itself (a child names its roots, and is
// "bounded by its parent"). IntersectFilesystem pairs the parent's
// writable workspace with the child's root (write) and the parent's
// overlay with it (read, overlay); normalizeEntries keeps the stronger
// grant at that path, write, without the overlay: the child's command
// writes the host's node_modules, and the person's next run of the
// package runs the agent's code outside every sandbox.
//
// Controls: the parent's command writes only its own copy (the host's
// file is unchanged); a child over the parent's own root keeps the
// overlay; the Write tool's decision in the child is refused (its
// rules, the parent's, see read there).
func TestAttack32ChildRootedInOverlayWritesIt(t *testing.T) {
	t.Parallel()
	profiles := filepath.Join(t.TempDir(), "profiles.toml")
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
	s := StartServer(t, "", "--profiles", profiles)
	root := workspace(t)
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
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "npm", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"profile": "npm"}, "workspace_root": root}, http.StatusCreated, nil)
	run := func(turnID, call, cwd string) decisionAnswer {
		st, raw := runtime.Request("POST", "/v1/turns/"+turnID+"/exec", map[string]any{"tool_call_id": call, "cwd": cwd, "timeout_ms": 20000,
			"argv": []string{"sh", "-c", "echo 'require(\"child_process\").exec(\"id\")' > " + index + " && echo wrote"}})
		var d decisionAnswer
		json.Unmarshal(raw, &d)
		t.Logf("%s %s: %d %s", turnID, call, st, raw)
		return d
	}
	hostFile := func() string {
		b, _ := os.ReadFile(index)
		return string(b)
	}

	// Control: the parent's command writes its own copy only.
	if d := run("npm", "w", root); !d.Ran || d.Result == nil || d.Result.Stdout != "wrote\n" {
		t.Fatalf("control: the parent's command did not write its overlay: %+v", d)
	}
	if got := hostFile(); got != orig {
		t.Fatalf("control: the parent's command changed the host's file: %q", got)
	}
	// Control: a child over the parent's own root keeps the overlay.
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "npm-c1", "workspace_id": "ws", "thread_id": "th",
		"parent_turn_id": "npm"}, http.StatusCreated, nil)
	if d := run("npm-c1", "w", root); !d.Ran {
		t.Fatalf("control: the plain child's command did not run: %+v", d)
	}
	if got := hostFile(); got != orig {
		t.Fatalf("control: the plain child's command changed the host's file: %q", got)
	}

	// The attack: a child rooted at node_modules.
	nmRoot := filepath.Join(root, "node_modules")
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "npm-c2", "workspace_id": "ws", "thread_id": "th",
		"parent_turn_id": "npm", "workspace_root": nmRoot, "cwd": nmRoot}, http.StatusCreated, nil)
	if d := runtime.decide("npm-c2", "wr", "apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Update File: " + index + "\n@@\n-module.exports = (s) => s;\n+x\n*** End Patch\n"}); d.Decision != "deny" {
		t.Logf("note: the child's apply_patch decision of the file: %+v", d)
	}
	run("npm-c2", "w", nmRoot)
	if got := hostFile(); got != orig {
		t.Errorf("a child turn rooted at the parent's overlay directory wrote the host's %s (the overlay keeps every command's writes its own): %q", index, got)
	}
}

// TestAttack32ProjectRootAtOverlayWritesIt: the same without a child. The
// runtime names a turn's project roots; under the operator's constraints
// (this profile alone, roots inside the workspace) it starts a turn of
// the profile whose project_roots name the workspace's node_modules. The
// profile's ":workspace_roots" = write then grants node_modules itself a
// write rule, as specific as the overlay's (a tie, which write wins over
// read, and overlay counts as read), and the entries keep the write root:
// the command writes the host's node_modules, and the decisions allow it.
//
// Controls: the constraints refuse a root outside the workspace; a turn
// without the project root writes its own copy only.
func TestAttack32ProjectRootAtOverlayWritesIt(t *testing.T) {
	t.Parallel()
	projectRootInOverlay(t, "node_modules")
}

// projectRootInOverlay starts a turn of a profile overlaying node_modules
// with the project root rel (node_modules, or a directory below it: the
// thirty-third review's TestAttack33ProjectRootBelowOverlayWritesIt), and
// checks that its command writes its own copy of a file there, not the
// host's.
func projectRootInOverlay(t *testing.T, rel string) {
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
	// The attack.
	if st, raw := start("pr", filepath.Join(root, rel)); st != http.StatusCreated {
		t.Fatalf("start with %s as a project root: %d %s", rel, st, raw)
	}
	if d := runtime.decide("pr", "wr", "apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Update File: " + index + "\n@@\n-module.exports = (s) => s;\n+x\n*** End Patch\n"}); d.Decision == "allow" {
		t.Logf("the apply_patch of the file is allowed too: %+v", d)
	}
	run("pr")
	if got := hostFile(); got != orig {
		t.Errorf("a turn of the profile whose project_roots name %s (its overlay directory or inside it) wrote the host's %s: %q", rel, index, got)
	}
}
