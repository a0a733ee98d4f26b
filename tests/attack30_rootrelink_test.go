package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestAttack30ForeignRootThroughRelinkedWorkspace: the twenty-eighth
// review's fix (api checkProjectRoots, domain ClaudeCodeConfig.ForeignRoot)
// judges a turn's roots once, at its start, as written and where their
// symlinks lead then. The snapshot keeps the root as written, and the
// sandbox resolves it at every check, where its link leads now. The
// agent, holding workspace app's runtime credential and a shell, makes a
// link of its own pointing at app's project, starts a turn labelled app
// in auto_accept_edits with workspace_root that link (accepted: it leads
// to app's project), then points the link at billing's project: the
// turn's writable root is now billing's project, and an apply_patch of
// billing's src/main.go (named through the link, and by its own path) is
// allowed without asking anyone, in workspace app where billing's
// approvers and auditors see nothing. The same turn started with
// workspace_root = billing's project is refused (the control). Fixed would
// be a turn's roots bound where they led when it started (their resolved
// paths in the snapshot, as BindRoots binds them to allowed_roots), or
// checked against the Claude Code projects at every resolution. Severity:
// medium (the twenty-eighth review's finding, reopened).
func TestAttack30ForeignRootThroughRelinkedWorkspace(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	base, _ = filepath.EvalSymlinks(base)
	app, billing := filepath.Join(base, "app"), filepath.Join(base, "billing")
	ccProject(t, app)
	ccProject(t, billing)
	cfg, _ := json.Marshal(map[string]any{"projects": []any{
		map[string]any{"root": app, "workspace_id": "app", "mode": "auto_accept_edits"},
		map[string]any{"root": billing, "workspace_id": "billing", "mode": "supervised"},
	}})
	cfgPath := filepath.Join(t.TempDir(), "claude-code.json")
	if err := os.WriteFile(cfgPath, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--claude-code-config", cfgPath)
	agent := roAs(s, roCreate(t, s, "a30r-claude", "runtime", "app"))
	patch := func(p string) map[string]any {
		return map[string]any{"patch": "*** Begin Patch\n*** Update File: " + p + "\n@@\n-func main() {}\n+func main() { exfiltrate() }\n*** End Patch\n"}
	}

	// Control: the turn rooted at billing's project is refused.
	if st, raw := agent.Do("POST", "/v1/turns", map[string]any{"turn_id": "a30r-direct", "workspace_id": "app", "workspace_root": billing,
		"permission_profile": map[string]any{"mode": "auto_accept_edits"}}); st == http.StatusCreated {
		t.Fatalf("control: a turn of app rooted at billing's project was started: %s", raw)
	}
	// The agent's link, to its own project at first.
	link := filepath.Join(base, "ws")
	if err := os.Symlink(app, link); err != nil {
		t.Fatal(err)
	}
	if st, raw := agent.Do("POST", "/v1/turns", map[string]any{"turn_id": "a30r-t", "workspace_id": "app", "workspace_root": link,
		"permission_profile": map[string]any{"mode": "auto_accept_edits"}}); st != http.StatusCreated {
		t.Fatalf("control: a turn of app rooted at a link to app's project: %d %s", st, raw)
	}
	// Control: the write in its own project through the link is allowed.
	if d := agent.decide("a30r-t", "c0", "apply_patch", patch(filepath.Join(link, "src", "main.go"))); d.Decision != "allow" {
		t.Fatalf("control: a write in app's project: %+v, want allow", d)
	}
	// The link now leads to billing's project.
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(billing, link); err != nil {
		t.Fatal(err)
	}
	for i, p := range []string{filepath.Join(link, "src", "main.go"), filepath.Join(billing, "src", "main.go")} {
		d := agent.decide("a30r-t", "c"+string(rune('1'+i)), "apply_patch", patch(p))
		if d.Decision == "allow" {
			t.Errorf("app's turn, its root relinked to billing's project after the check, was allowed to write %s without asking (%s)", p, d.Reason)
		}
	}
}
