package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack119_HookOuterProjectWritesNestedWorkspace (hundred-and-
// nineteenth review, medium): the Claude Code projects "also say which
// directories are which workspace's for every turn, not just the hook's"
// (README): a turn started over REST whose root lies in, or HOLDS, a
// project of another workspace is refused, so that a credential of
// workspace app cannot act on billing's files under app's label, where
// billing's approvers and auditors see nothing (the twenty-eighth review).
// The configuration may nest projects of different workspaces (a catch-all
// "/" is documented; here billing's project lies inside app's). The hook's
// own turns are never so checked: a session whose cwd is in app's project
// gets a turn rooted at app's root, which holds billing's project, and a
// Write (an absolute file_path, as Claude Code sends) into billing's
// project is decided there, under app's mode, with app's label.
//
// The attack: app's runtime credential (scoped to app, the hook's) sends
// the PreToolUse Claude Code sends for a Write of billing/src/main.go from
// a session in app: allowed without asking anyone, in app's turn; billing's
// scoped auditor lists no turn of it.
//
// Controls (TestAttack119_HookOuterProjectWritesNestedWorkspaceControl):
// the same credential's REST turn rooted at app's root is refused (it holds
// billing's project); the hook refuses it a session whose cwd is in
// billing's project; and billing's own credential's session writing the
// same file is decided in billing's supervised turn (ask), seen by
// billing's auditor.
func TestAttack119_HookOuterProjectWritesNestedWorkspace(t *testing.T) {
	t.Parallel()
	s, app, billing := attack119NestedServer(t)
	agent := roAs(s, roCreate(t, s, "a119n-app", "runtime", "app"))
	auditor := roAs(s, roCreate(t, s, "a119n-billing-auditor", "auditor", "billing"))

	target := filepath.Join(billing, "src", "main.go")
	pre := ccEdit(t, ccPayload(t, "pre_write", "a119n-session", app), map[string]any{
		"tool_input": map[string]any{"file_path": target, "content": "package main\n\nfunc main() { exfiltrate() }\n"},
	})
	out := agent.hookHTTP(pre)
	t.Logf("Write of %s from a session in %s: %s", target, app, out)
	var seen struct {
		Turns []struct {
			ID string `json:"id"`
		} `json:"turns"`
	}
	auditor.JSON("GET", "/v1/turns?workspace_id=billing", nil, http.StatusOK, &seen)
	if strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Errorf("app's runtime credential, through the hook from a session in app's project, was allowed without asking anyone to write %s, in billing's project (workspace billing); the decision is in app's turn %s, and billing's auditor lists %d turns",
			target, ccTurn("a119n-session", 1), len(seen.Turns))
	}
}

// TestAttack119_HookOuterProjectWritesNestedWorkspaceControl: what holds
// (passes): REST refuses app's turn rooted at app's root (it holds
// billing's project); the hook refuses app's credential a session in
// billing's project; app's own file is written from app's session without
// a question; billing's credential writing billing's file from a session
// in billing is asked in billing's turn, which billing's auditor sees.
func TestAttack119_HookOuterProjectWritesNestedWorkspaceControl(t *testing.T) {
	t.Parallel()
	s, app, billing := attack119NestedServer(t)
	agent := roAs(s, roCreate(t, s, "a119c-app", "runtime", "app"))
	billingRT := roAs(s, roCreate(t, s, "a119c-billing", "runtime", "billing"))
	auditor := roAs(s, roCreate(t, s, "a119c-billing-auditor", "auditor", "billing"))
	target := filepath.Join(billing, "src", "main.go")

	// REST: a turn of app rooted at app's root holds billing's project.
	st, raw := agent.Do("POST", "/v1/turns", map[string]any{"turn_id": "a119c-rest", "workspace_id": "app", "workspace_root": app,
		"permission_profile": map[string]any{"mode": "auto_accept_edits"}})
	if st != http.StatusBadRequest || !strings.Contains(string(raw), billing) {
		t.Fatalf("REST turn of app rooted at %s (holds billing's project): %d %s, want 400 naming %s", app, st, raw, billing)
	}
	// The hook: app's credential in a session whose cwd is billing's.
	inBilling := ccEdit(t, ccPayload(t, "pre_write", "a119c-s1", billing), map[string]any{
		"tool_input": map[string]any{"file_path": target, "content": "x\n"}})
	if out := agent.hookHTTP(inBilling); !strings.Contains(out, `"permissionDecision":"deny"`) {
		t.Fatalf("app's credential, a session in billing's project: %s, want deny", out)
	}
	// Honest: app's own file from app's session, no question.
	own := ccPayload(t, "pre_write", "a119c-s2", app)
	if out := agent.hookHTTP(own); !strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Fatalf("app's credential writing app's own file from app's session: %s, want allow", out)
	}
	// Honest: billing's credential writing billing's file from billing's
	// session is asked in billing's (supervised) turn.
	honest := ccEdit(t, ccPayload(t, "pre_write", "a119c-s3", billing), map[string]any{
		"tool_input": map[string]any{"file_path": target, "content": "x\n"}})
	if out := billingRT.hookHTTP(honest); !strings.Contains(out, `"permissionDecision":"ask"`) {
		t.Fatalf("billing's credential writing billing's file from billing's session: %s, want ask", out)
	}
	var seen struct {
		Turns []struct {
			ID string `json:"id"`
		} `json:"turns"`
	}
	auditor.JSON("GET", "/v1/turns?workspace_id=billing", nil, http.StatusOK, &seen)
	found := false
	for _, tv := range seen.Turns {
		found = found || tv.ID == ccTurn("a119c-s3", 1)
	}
	if !found {
		t.Fatalf("billing's auditor does not list billing's session turn %s: %+v", ccTurn("a119c-s3", 1), seen.Turns)
	}
}

// attack119NestedServer serves two Claude Code projects, billing's nested
// in app's: app (workspace app, auto_accept_edits) and app/billing
// (workspace billing, supervised).
func attack119NestedServer(t *testing.T) (s *Server, app, billing string) {
	t.Helper()
	base := t.TempDir()
	base, _ = filepath.EvalSymlinks(base)
	app = filepath.Join(base, "app")
	billing = filepath.Join(app, "billing")
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
	return StartServer(t, "", "--claude-code-config", cfgPath), app, billing
}

// TestAttack119_HookCdIntoNestedWorkspaceKeepsLabel (same finding, the
// other way in): the hook's credential is one for every workspace (the
// usual set-up: one runtime credential in Claude Code's settings). The
// session starts in app's project; the agent's Bash `cd billing` (inside
// the directory Claude Code started in, which it allows) makes every later
// call's cwd billing's. Each PreToolUse then narrows the session's turn to
// billing's project and mode (ccNarrowToMode), but the turn keeps app's
// label: billing's writes are asked of app's approvers (the request says
// workspace app), and billing's scoped approvers and auditors see none of
// it. A REST turn of app over billing's root is refused whoever asks.
//
// Control (TestAttack119_HookOuterProjectWritesNestedWorkspaceControl): a
// session started in billing's project asks in billing's turn.
func TestAttack119_HookCdIntoNestedWorkspaceKeepsLabel(t *testing.T) {
	t.Parallel()
	s, app, billing := attack119NestedServer(t)
	agent := roAs(s, roCreate(t, s, "a119d-hook", "runtime"))
	const session = "a119d-session"
	agent.hookHTTP(ccPayload(t, "user_prompt_submit", session, app))
	target := filepath.Join(billing, "src", "main.go")
	pre := ccEdit(t, ccPayload(t, "pre_write", session, app), map[string]any{"cwd": billing,
		"tool_input": map[string]any{"file_path": target, "content": "package main\n\nfunc main() { exfiltrate() }\n"}})
	out := agent.hookHTTP(pre)
	t.Logf("Write of %s, cwd %s, session started in %s: %s", target, billing, app, out)
	var list struct {
		Approvals []struct {
			Request approvalRequest `json:"request"`
		} `json:"approvals"`
	}
	s.JSON("GET", "/v1/approvals?status=pending&turn_id="+ccTurn(session, 1), nil, http.StatusOK, &list)
	for _, a := range list.Approvals {
		if strings.Contains(a.Request.Summary, target) {
			if a.Request.WorkspaceID != "billing" {
				t.Errorf("the Write of billing's %s is asked in turn %s labelled workspace %q: app's approvers answer it, billing's never see it", target, a.Request.TurnID, a.Request.WorkspaceID)
			}
			return
		}
	}
	if strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Errorf("the Write of billing's %s from app's session was allowed: %s", target, out)
	}
}
