package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack123_HookFullAccessSiblingWorkspace (hundred-and-twenty-third
// review, low): the hundred-and-nineteenth review's fix denies a hook's turn
// every project of another workspace NESTED inside its project (a
// sensitive_path entry, which caps full_access too), "so a session in app
// that holds billing's project cannot read or write billing's files under
// app's label, where billing's approvers and auditors see nothing"
// (README). ForeignWithin lists only the projects inside the turn's root;
// a full_access turn's filesystem is every path, so a project of another
// workspace beside app's (base/billing next to base/app) is as reachable as
// the nested one was, and gets no entry.
//
// The attack: app's runtime credential (scoped to app), from a session in
// app's full_access project, sends the PreToolUse of a Write (and a Read)
// of billing's files: allowed without asking anyone, in app's turn.
//
// Control (in the test, labelled): the same server's other billing project,
// nested in app's, is denied to the same session (the 119 fix), full_access
// or not: the entries cap it.
func TestAttack123_HookFullAccessSiblingWorkspace(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	base, _ = filepath.EvalSymlinks(base)
	app := filepath.Join(base, "app")
	nested := filepath.Join(app, "billing")
	sibling := filepath.Join(base, "billing")
	for _, d := range []string{app, nested, sibling} {
		ccProject(t, d)
	}
	cfg, _ := json.Marshal(map[string]any{"projects": []any{
		map[string]any{"root": app, "workspace_id": "app", "mode": "full_access"},
		map[string]any{"root": nested, "workspace_id": "billing", "mode": "supervised"},
		map[string]any{"root": sibling, "workspace_id": "billing", "mode": "supervised"},
	}})
	cfgPath := filepath.Join(t.TempDir(), "claude-code.json")
	if err := os.WriteFile(cfgPath, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--claude-code-config", cfgPath)
	agent := roAs(s, roCreate(t, s, "a123s-app", "runtime", "app"))
	const session = "a123s-session"
	write := func(id, target string) string {
		return agent.hookHTTP(ccEdit(t, ccPayload(t, "pre_write", session, app), map[string]any{"tool_use_id": id,
			"tool_input": map[string]any{"file_path": target, "content": "package main\n\nfunc main() { exfiltrate() }\n"}}))
	}
	read := func(id, target string) string {
		return agent.hookHTTP(ccEdit(t, ccPayload(t, "pre_read", session, app), map[string]any{"tool_use_id": id,
			"tool_input": map[string]any{"file_path": target}}))
	}

	// CONTROL: the nested billing project is denied, full_access or not.
	if out := write("toolu_a123s_c1", filepath.Join(nested, "src", "main.go")); !strings.Contains(out, `"permissionDecision":"deny"`) {
		t.Fatalf("control: Write of the nested billing project's file from app's full_access session: %s, want deny", out)
	}
	if out := read("toolu_a123s_c2", filepath.Join(nested, "src", "main.go")); !strings.Contains(out, `"permissionDecision":"deny"`) {
		t.Fatalf("control: Read of the nested billing project's file from app's full_access session: %s, want deny", out)
	}
	// CONTROL: app's own file is allowed.
	if out := write("toolu_a123s_c3", filepath.Join(app, "src", "main.go")); !strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Fatalf("control: Write of app's own file: %s, want allow", out)
	}

	// ATTACK: billing's project beside app's.
	target := filepath.Join(sibling, "src", "main.go")
	w, r := write("toolu_a123s_w", target), read("toolu_a123s_r", target)
	t.Logf("Write of %s: %s; Read: %s", target, w, r)
	if strings.Contains(w, `"permissionDecision":"allow"`) || strings.Contains(r, `"permissionDecision":"allow"`) {
		t.Errorf("app's runtime credential, from a full_access session in app's project, was allowed without asking anyone to act on %s, in billing's project %s (workspace billing), under app's label (write %v, read %v), while billing's project nested in app's is denied to it",
			target, sibling, strings.Contains(w, `"allow"`), strings.Contains(r, `"allow"`))
	}
}
