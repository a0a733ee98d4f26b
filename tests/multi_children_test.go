package tests

import (
	"net/http"
	"path/filepath"
	"testing"
)

// TestMultiParentEndsChildOnOtherInstance: two instances on one store. A
// starts a parent and its child; B opens an exec request in the child (so
// B has the child cached); A completes the parent. On B the child's request
// can no longer be approved, the exec does not run, and the child reads as
// completed. Commands on B find what they need through the engine: a
// response without turn_id to a request A opened (B's engine never saw it)
// and a profile change of a child whose parent only A wrote.
func TestMultiParentEndsChildOnOtherInstance(t *testing.T) {
	t.Parallel()
	p := miStartPair(t)
	root := workspace(t)
	miCall(t, p.A, "POST", "/v1/turns", map[string]any{"turn_id": "mp", "workspace_id": "w", "thread_id": "t", "workspace_root": root,
		"permission_profile": map[string]any{"mode": "full_access"}}, http.StatusCreated, nil)
	for _, id := range []string{"mk", "mk2"} {
		miCall(t, p.A, "POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "w", "thread_id": "t", "workspace_root": root,
			"parent_turn_id": "mp", "permission_profile": map[string]any{"mode": "supervised"}}, http.StatusCreated, nil)
	}
	// Control on B: a request A opened, answered without turn_id; a child
	// whose parent B never loaded changes its profile.
	var opened decisionAnswer
	miCall(t, p.A, "POST", "/v1/turns/mk2/decisions", miDecisionBody("q", miExec("lint")), http.StatusOK, &opened)
	miCall(t, p.B, "POST", "/v1/approvals/"+opened.Request.RequestID+"/respond", map[string]string{"resolution": "deny"}, http.StatusOK, nil)
	miCall(t, p.B, "POST", "/v1/turns/mk2/permissions", map[string]any{"permission_profile": map[string]any{"mode": "supervised", "denied_tools": []string{"web_fetch"}}}, http.StatusOK, nil)

	marker := filepath.Join(root, "ran")
	body := map[string]any{"tool_call_id": "x", "argv": []string{"sh", "-c", "echo > " + marker}}
	var pending decisionAnswer
	miCall(t, p.B, "POST", "/v1/turns/mk/exec", body, http.StatusAccepted, &pending)
	miCall(t, p.A, "POST", "/v1/turns/mp/complete", nil, http.StatusOK, nil)

	status, raw, err := miDo(p.B, "POST", "/v1/approvals/"+pending.Request.RequestID+"/respond", map[string]any{"resolution": "allow_once", "turn_id": "mk"})
	if err != nil || status == http.StatusOK {
		t.Fatalf("B approved the child's request after A completed its parent: %d %s %v", status, raw, err)
	}
	var d decisionAnswer
	miCall(t, p.B, "POST", "/v1/turns/mk/exec", body, http.StatusOK, &d)
	if d.Ran || d.Decision != "deny" || d.Reason != "cancelled" || exists(marker) {
		t.Fatalf("child exec on B after the parent completed on A: %+v", d)
	}
	waitUntil(t, "the child to read as completed on B", func() (bool, string) {
		var tr turnAnswer
		miCall(t, p.B, "GET", "/v1/turns/mk", nil, http.StatusOK, &tr)
		return tr.Turn.Status == "completed", tr.Turn.Status
	})
}
