package tests

import (
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
)

// TestModeDecisions drives POST /v1/turns/{id}/decisions in each mode for
// every kind of tool and checks decision, reason, action and cached against
// REFERENCE §1–2.
func TestModeDecisions(t *testing.T) {
	t.Parallel()
	// One MCP server is trusted as read-only.
	s := StartServer(t, "", "--mcp-read-only", "docs/*")
	root := workspace(t)
	patch := map[string]any{"patch": "*** Begin Patch\n*** Add File: new.txt\n+x\n*** End Patch"}
	type want struct{ decision, reason string }
	tools := []struct {
		name, tool, action string
		args               any
		mcp                map[string]any
		full, edits, sup   want
	}{
		{name: "read_file", tool: "read_file", action: "file_read", args: map[string]any{"path": "a.txt"},
			full: want{"allow", "full_access"}, edits: want{"allow", "policy_allows_action"}, sup: want{"allow", "policy_allows_action"}},
		// Supervised asks before a write in the workspace (REFERENCE §1); the
		// read-only sandbox binds the commands it runs, not this question.
		{name: "apply_patch", tool: "apply_patch", action: "file_write", args: patch,
			full: want{"allow", "full_access"}, edits: want{"allow", "policy_allows_action"}, sup: want{"ask", "policy_requires_approval"}},
		// A write outside the roots is refused by the resource check before
		// anyone is asked, in every restricted mode.
		{name: "apply_patch_outside", tool: "apply_patch", action: "file_write", args: map[string]any{"patch": "*** Update File: /etc/turnstile-e2e\n"},
			full: want{"allow", "full_access"}, edits: want{"deny", "sandbox_denied"}, sup: want{"deny", "sandbox_denied"}},
		{name: "exec_command", tool: "exec_command", action: "shell_command", args: map[string]any{"cmd": "ls -l"},
			full: want{"allow", "full_access"}, edits: want{"ask", "policy_requires_approval"}, sup: want{"ask", "policy_requires_approval"}},
		{name: "web_fetch", tool: "web_fetch", action: "network", args: map[string]any{"url": "https://example.com/docs?q=1"},
			full: want{"allow", "full_access"}, edits: want{"ask", "policy_requires_approval"}, sup: want{"ask", "policy_requires_approval"}},
		// A server's read-only hint alone is not trust.
		{name: "mcp_hinted", tool: "mcp__notes__search", action: "mcp_write_or_unknown", args: map[string]any{"q": "x"},
			mcp:  map[string]any{"server": "notes", "tool": "search", "read_only_hint": true},
			full: want{"allow", "full_access"}, edits: want{"ask", "policy_requires_approval"}, sup: want{"ask", "policy_requires_approval"}},
		{name: "mcp_trusted", tool: "mcp__docs__lookup", action: "mcp_read", args: map[string]any{"q": "x"},
			mcp:  map[string]any{"server": "docs", "tool": "lookup"},
			full: want{"allow", "full_access"}, edits: want{"allow", "policy_allows_action"}, sup: want{"allow", "policy_allows_action"}},
		{name: "unknown", tool: "frobnicate", action: "unknown", args: map[string]any{"x": 1},
			full: want{"allow", "unknown_action_default"}, edits: want{"ask", "unknown_action_default"}, sup: want{"ask", "unknown_action_default"}},
		{name: "internal", tool: "task_list", action: "internal",
			full: want{"allow", "policy_allows_action"}, edits: want{"allow", "policy_allows_action"}, sup: want{"allow", "policy_allows_action"}},
		{name: "task_create", tool: "task_create", action: "task_subagent", args: map[string]any{"prompt": "p"},
			full: want{"allow", "full_access"}, edits: want{"ask", "policy_requires_approval"}, sup: want{"ask", "policy_requires_approval"}},
		{name: "skill", tool: "skill__lint", action: "dynamic_skill_tool",
			full: want{"allow", "full_access"}, edits: want{"ask", "policy_requires_approval"}, sup: want{"ask", "policy_requires_approval"}},
	}
	for _, mode := range []string{"full_access", "auto_accept_edits", "supervised"} {
		turnID := "modes-" + mode
		tr := s.startTurn(turnID, "ws-modes", mode, root)
		if tr.Turn.Profile.Mode != mode || tr.Turn.Profile.Source != "composer" {
			t.Fatalf("%s: profile %+v", mode, tr.Turn.Profile)
		}
		for _, tc := range tools {
			w := map[string]want{"full_access": tc.full, "auto_accept_edits": tc.edits, "supervised": tc.sup}[mode]
			body := map[string]any{"tool_call_id": "call-" + tc.name, "tool_name": tc.tool}
			if tc.args != nil {
				body["arguments"] = tc.args
			}
			if tc.mcp != nil {
				body["mcp"] = tc.mcp
			}
			var d decisionAnswer
			s.JSON("POST", "/v1/turns/"+turnID+"/decisions", body, http.StatusOK, &d)
			label := fmt.Sprintf("%s/%s", mode, tc.name)
			if d.Decision != w.decision || d.Reason != w.reason || d.Action != tc.action || d.Cached || d.Replayed {
				t.Errorf("%s: got decision=%s reason=%s action=%s cached=%v replayed=%v, want %s %s %s cached=false",
					label, d.Decision, d.Reason, d.Action, d.Cached, d.Replayed, w.decision, w.reason, tc.action)
			}
			if len(d.ScopeHash) != 64 {
				t.Errorf("%s: scope hash %q", label, d.ScopeHash)
			}
			switch d.Decision {
			case "ask":
				if d.Request == nil || d.Request.TurnID != turnID || d.Request.ToolName != tc.tool || d.Request.Action != tc.action ||
					d.Request.ScopeHash != d.ScopeHash || d.Request.WorkspaceID != "ws-modes" || d.RequestStatus != "pending" {
					t.Errorf("%s: ask without a matching pending request: %+v %+v", label, d, d.Request)
				}
			default:
				if d.Request != nil {
					t.Errorf("%s: %s with a request %+v", label, d.Decision, d.Request)
				}
			}
			if tc.name == "apply_patch_outside" && mode != "full_access" && d.Refusal != "write_requires_writable_root" {
				t.Errorf("%s: refusal %q, want write_requires_writable_root (/etc is a read-only system root)", label, d.Refusal)
			}
		}
	}
}

// TestDefaultProfileAndToolLists checks the defaulted profile and the
// allowed/denied tool and path lists of REFERENCE §1.
func TestDefaultProfileAndToolLists(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	tr := s.startTurn("default", "ws", "", root)
	if tr.Turn.Profile.Mode != "full_access" || tr.Turn.Profile.Source != "defaulted" || tr.SecuritySnapshot.Sandbox.Mode != "unrestricted" {
		t.Fatalf("default profile %+v sandbox %q", tr.Turn.Profile, tr.SecuritySnapshot.Sandbox.Mode)
	}
	var narrowed turnAnswer
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "narrowed", "workspace_id": "ws", "thread_id": "th", "workspace_root": root,
		"permission_profile": map[string]any{"mode": "full_access", "denied_tools": []string{"web_fetch"},
			"allowed_paths": []string{filepath.Join(root, "sub")}, "allowed_paths_restricted": true}}, http.StatusCreated, &narrowed)
	if d := s.decide("narrowed", "c1", "web_fetch", map[string]any{"url": "https://example.com/"}); d.Decision != "deny" || d.Reason != "policy_denies_action" || d.DecidedBy != "denied_tools" {
		t.Errorf("denied tool: %+v", d)
	}
	if d := s.decide("narrowed", "c2", "read_file", map[string]any{"path": "a.txt"}); d.Decision != "deny" || d.Reason != "policy_denies_action" || d.DecidedBy != "allowed_paths" {
		t.Errorf("path outside allowed_paths: %+v", d)
	}
	// A command names no files, and nothing holds it to allowed_paths: the
	// table's allow is denied so (the hundred-and-nineteenth review).
	if d := s.decide("narrowed", "c3", "exec_command", map[string]any{"cmd": "true"}); d.Decision != "deny" || d.Reason != "policy_denies_action" || d.DecidedBy != "allowed_paths" {
		t.Errorf("exec in full_access narrowed by allowed_paths: %+v", d)
	}
	// The control: the same command without the list.
	if d := s.decide("default", "c3", "exec_command", map[string]any{"cmd": "true"}); d.Decision != "allow" || d.Reason != "full_access" {
		t.Errorf("exec in full_access: %+v", d)
	}
	var prompt struct {
		PermissionsPrompt string `json:"permissions_prompt"`
	}
	s.JSON("GET", "/v1/turns/narrowed", nil, http.StatusOK, &prompt)
	if prompt.PermissionsPrompt == "" {
		t.Error("a narrowed profile renders no Current Permissions section")
	}
	var plain struct {
		PermissionsPrompt string `json:"permissions_prompt"`
	}
	s.JSON("GET", "/v1/turns/default", nil, http.StatusOK, &plain)
	if plain.PermissionsPrompt != "" {
		t.Errorf("default full_access renders a prompt: %q", plain.PermissionsPrompt)
	}
}

// TestMidTurnPermissionChange narrows and widens a turn's profile: grants
// are cleared, pending requests the new profile denies are cancelled, and
// the next decision follows the new profile.
func TestMidTurnPermissionChange(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("mid", "ws", "auto_accept_edits", root)
	ask := s.decide("mid", "c1", "exec_command", map[string]any{"cmd": "ls"})
	s.respond(ask.Request.RequestID, "allow_for_turn")
	if d := s.decide("mid", "c2", "exec_command", map[string]any{"cmd": "ls"}); d.Reason != "cached_approval" {
		t.Fatalf("grant: %+v", d)
	}
	fetch := s.decide("mid", "c3", "web_fetch", map[string]any{"url": "https://example.com/"})
	patch := map[string]any{"patch": "*** Add File: n.txt\n+x"}
	if d := s.decide("mid", "c4", "apply_patch", patch); d.Decision != "allow" {
		t.Fatalf("patch in auto_accept_edits: %+v", d)
	}

	// Narrow: web_fetch denied; the grant and the pending fetch go.
	var tr turnAnswer
	s.JSON("POST", "/v1/turns/mid/permissions", map[string]any{"permission_profile": map[string]any{"mode": "auto_accept_edits", "denied_tools": []string{"web_fetch"}}}, http.StatusOK, &tr)
	if tr.Turn.PendingApprovals != 0 || tr.Turn.Status != "in_progress" {
		t.Fatalf("after narrowing: %+v", tr.Turn)
	}
	var a approvalView
	s.JSON("GET", "/v1/approvals/"+fetch.Request.RequestID, nil, http.StatusOK, &a)
	if a.Status != "resolved" || a.Resolution != "cancelled" {
		t.Fatalf("pending fetch after narrowing: %+v", a)
	}
	if d := s.decide("mid", "c5", "exec_command", map[string]any{"cmd": "ls"}); d.Decision != "ask" || d.Cached {
		t.Fatalf("grant survived a profile change: %+v", d)
	}
	if d := s.decide("mid", "c6", "web_fetch", map[string]any{"url": "https://example.com/"}); d.Decision != "deny" || d.Reason != "policy_denies_action" {
		t.Fatalf("fetch after narrowing: %+v", d)
	}
	// The same profile again changes nothing.
	before := s.footprint("mid")
	s.JSON("POST", "/v1/turns/mid/permissions", map[string]any{"permission_profile": map[string]any{"mode": "auto_accept_edits", "denied_tools": []string{"web_fetch"}}}, http.StatusOK, nil)
	if after := s.footprint("mid"); after != before {
		t.Fatalf("an unchanged profile appended: %v → %v", before, after)
	}
	// Widen to full_access: the next decision is allowed.
	s.JSON("POST", "/v1/turns/mid/permissions", map[string]any{"permission_profile": map[string]any{"mode": "full_access"}}, http.StatusOK, &tr)
	if tr.Turn.Profile.Mode != "full_access" || tr.SecuritySnapshot.Sandbox.Mode != "unrestricted" {
		t.Fatalf("after widening: %+v", tr)
	}
	if d := s.decide("mid", "c7", "web_fetch", map[string]any{"url": "https://example.com/"}); d.Decision != "allow" || d.Reason != "full_access" {
		t.Fatalf("fetch after widening: %+v", d)
	}
	// The exec asked at c5 is allowed by full_access: the widening change
	// resolved it allow_once (issue 12), so nothing stays pending and the
	// re-sent call answers allow.
	var pending struct{ Approvals []approvalView }
	s.JSON("GET", "/v1/approvals?status=pending&turn_id=mid", nil, http.StatusOK, &pending)
	if len(pending.Approvals) != 0 {
		t.Fatalf("pending after the changes: %+v", pending.Approvals)
	}
	if d := s.decide("mid", "c5", "exec_command", map[string]any{"cmd": "ls"}); d.Decision != "allow" || d.Reason != "permissions_changed" {
		t.Fatalf("c5 re-sent after widening: %+v", d)
	}
}
