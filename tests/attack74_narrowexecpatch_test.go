package tests

import (
	"net/http"
	"testing"
)

// TestAttack74NarrowingLeavesExecPatchRequestOpen: the seventy-fourth
// review. REFERENCE §9: narrowing "applies to the next decision and cancels
// pending approvals it no longer covers". An exec_command whose script is
// `apply_patch <<'EOF' … EOF` is, to Codex, the tool apply_patch (it applies
// the patch itself, outside the command's sandbox), and Evaluate judges it
// by both names (Action.AlsoTool, the sixty-first review). A mid-turn
// change re-judges the open requests (turn.changeTo) from the recorded
// action, rebuilt from its tool name, kinds, files and argv, but not its
// AlsoTool: an admin who narrows the turn with denied_tools: ["apply_patch"]
// (or an allowed_tools list without it) leaves the pending request for the
// agent's exec patch open, and a person is still asked to approve the patch
// the admin just forbade. (A runtime that asks again after the answer is
// refused, since the replay re-classifies the call with its AlsoTool; one
// that acts on turn/permission/request/resolved, or a person who answers
// without knowing, gets the patch the admin forbade.)
//
// The same gap in a change that also widens (an admin's "shell commands
// freely, but no patches": full_access with denied_tools apply_patch) is
// worse: changeTo finds the rebuilt action allowed and resolves the pending
// exec patch allow_once (permissions_changed), approving in the record the
// patch the change itself forbids.
//
// Severity: low (a stale request, or a recorded allow_once, for a call the
// new profile denies; a re-decision of the call still refuses it, since
// the replay re-classifies it with its AlsoTool).
//
// Fixed would look like: the action changeTo re-judges carries the record's
// second tool too (ActionRecord keeps AlsoTool, or the scope's patch_paths
// marks it), so that Evaluate refuses it by the tool lists and the request
// is cancelled with permissions_changed.
//
// Control: the same narrowing by denied_tools: ["exec_command"] cancels the
// request for the same call in another turn.
func TestAttack74NarrowingLeavesExecPatchRequestOpen(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	script := "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: notes.txt\n+hello\n*** End Patch\nEOF\n"
	// changed opens the request in a new turn, has the admin change the
	// turn to mode with denied_tools [denied], and asks again: the
	// request's status, its resolution and the decision.
	changed := func(turnID, mode, denied string) string {
		t.Helper()
		runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": turnID, "workspace_id": "ws", "thread_id": "th-" + turnID,
			"permission_profile": map[string]any{"mode": "auto_accept_edits"}, "workspace_root": root}, http.StatusCreated, nil)
		d := runtime.decide(turnID, "patch", "exec_command", map[string]any{"cmd": script})
		if d.Decision != "ask" || d.Request == nil {
			t.Fatalf("precondition: the exec patch under auto_accept_edits asks: %+v", d)
		}
		if st, b := s.Request("POST", "/v1/turns/"+turnID+"/permissions", map[string]any{"permission_profile": map[string]any{
			"mode": mode, "denied_tools": []string{denied}}}); st != http.StatusOK {
			t.Fatalf("changing %s: %d %s", turnID, st, b)
		}
		again := runtime.decide(turnID, "patch", "exec_command", map[string]any{"cmd": script})
		return again.RequestStatus + "/" + again.Resolution + "/" + again.Decision
	}
	if got := changed("np-exec", "auto_accept_edits", "exec_command"); got != "resolved/cancelled/deny" {
		t.Fatalf("control: the request after denied_tools [exec_command]: %s, want resolved/cancelled", got)
	}
	if got := changed("np-patch", "auto_accept_edits", "apply_patch"); got != "resolved/cancelled/deny" {
		t.Errorf("the request for the exec patch after denied_tools [apply_patch]: %s, want resolved/cancelled/deny (the narrowing denies it)", got)
	}
	// The same in one change that also widens (an admin's "shell commands
	// freely, but no patches": full_access with denied_tools apply_patch):
	// the change resolves the pending exec patch allow_once, by
	// permissions_changed, the patch the change itself forbids.
	if got := changed("np-wide", "full_access", "apply_patch"); got != "resolved/cancelled/deny" {
		t.Errorf("the request for the exec patch after a change to full_access with denied_tools [apply_patch]: %s, want resolved/cancelled/deny", got)
	}
}
