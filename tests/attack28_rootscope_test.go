package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack28ScopedRuntimeRootsAnotherWorkspacesProject: a credential
// limited to workspace app ("outside them every request appends
// nothing") is limited to a label, not to that workspace's files. The
// operator's Claude Code configuration says which directory is which
// workspace's (projects: /…/app → app, /…/billing → billing), and the hook
// holds a credential to it: a PreToolUse whose cwd is in billing's project
// is refused to app's runtime credential. But the agent, which holds that
// credential and a shell, starts a turn over REST labelled app and rooted
// at billing's project (workspace_root is whatever the starter names,
// within the operator's global allowed_roots, if any), in
// auto_accept_edits, where a file write in a writable root is allowed
// without asking: it writes billing's files with no approval, and every
// event of it lands in workspace app, so billing's own (scoped) approvers
// and auditors neither are asked nor see anything.
//
// Why it matters: workspace scopes are how an operator separates teams'
// projects and their approvers; the scope binds what a credential reads
// and answers, not where its turns act.
//
// Fixed would look like: a turn's roots checked against the workspace it
// is labelled with where the operator has said which roots are which
// workspace's (the Claude Code projects, or a per-workspace allowed_roots
// in the constraints): a root inside another workspace's project refused
// (403), as the hook refuses a cwd there.
//
// Severity: medium.
func TestAttack28ScopedRuntimeRootsAnotherWorkspacesProject(t *testing.T) {
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
	agent := roAs(s, roCreate(t, s, "a28w-claude", "runtime", "app"))
	auditor := roAs(s, roCreate(t, s, "a28w-billing-auditor", "auditor", "billing"))

	// Control: through the hook, app's credential cannot act in billing's
	// project.
	pre := ccEdit(t, ccPayload(t, "pre_write", "a28w-session", billing), nil)
	if out := agent.hookHTTP(pre); !strings.Contains(out, `"permissionDecision":"deny"`) {
		t.Fatalf("app's credential, a PreToolUse in billing's project: %s, want deny", out)
	}
	// Control: its own project over REST works as the README says.
	agent.startTurn("a28w-own", "app", "auto_accept_edits", app)
	own := agent.decide("a28w-own", "c0", "apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Add File: " + filepath.Join(app, "src", "ok.go") + "\n+package main\n*** End Patch\n"})
	if own.Decision != "allow" {
		t.Fatalf("a write in its own project: %+v, want allow", own)
	}

	// The attack: a turn labelled app, rooted at billing's project.
	body := map[string]any{"turn_id": "a28w-t", "workspace_id": "app", "workspace_root": billing,
		"permission_profile": map[string]any{"mode": "auto_accept_edits"}}
	st, raw := agent.Do("POST", "/v1/turns", body)
	if st != http.StatusCreated {
		t.Logf("the turn rooted at billing's project was refused: %d %s", st, raw)
		return
	}
	target := filepath.Join(billing, "src", "main.go")
	d := agent.decide("a28w-t", "c1", "apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Update File: " + target + "\n@@\n-func main() {}\n+func main() { exfiltrate() }\n*** End Patch\n"})
	var seen struct {
		Turns []struct {
			ID string `json:"id"`
		} `json:"turns"`
	}
	auditor.JSON("GET", "/v1/turns?workspace_id=billing", nil, http.StatusOK, &seen)
	for _, tv := range seen.Turns {
		if tv.ID == "a28w-t" {
			t.Fatalf("billing's auditor sees the turn: the write is at least visible to billing")
		}
	}
	if d.Decision == "allow" {
		t.Errorf("app's runtime credential started a turn (workspace app) rooted at billing's project and was allowed, without asking anyone, to write %s (%s); billing's auditor lists none of it", target, d.Reason)
	} else {
		t.Logf("the write in billing's project: %+v", d)
	}
}
