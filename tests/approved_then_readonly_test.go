package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestApprovedWriteThenReadOnlyNeverAsk: a person allows a pending
// apply_patch once; before the runtime asks again, an admin moves the turn
// to a read-only profile that never asks. The retry of the approved call is
// judged as the new snapshot stands (the seventy-fourth review's fix:
// checkResources applies asIsRefusal to a call whose request was allowed
// under an earlier snapshot), so it is refused: the person's allow was for
// the writable turn, not for the read-only one.
func TestApprovedWriteThenReadOnlyNeverAsk(t *testing.T) {
	t.Parallel()
	profiles := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.reviewer]
extends = ":read-only"
[permissions.reviewer.approvals]
policy = "full_access"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles)
	root := workspace(t)
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "ap", "workspace_id": "ws", "thread_id": "th-ap",
		"permission_profile": map[string]any{"mode": "supervised"}, "workspace_root": root}, http.StatusCreated, nil)
	patch := map[string]any{"patch": "*** Begin Patch\n*** Add File: " + filepath.Join(root, "planted.sh") + "\n+x\n*** End Patch\n"}
	d := runtime.decide("ap", "p1", "apply_patch", patch)
	if d.Decision != "ask" || d.Request == nil {
		t.Fatalf("precondition: apply_patch under supervised asks: %+v", d)
	}
	if st, b := s.Request("POST", "/v1/approvals/"+d.Request.RequestID+"/respond", map[string]string{"resolution": "allow_once"}); st != http.StatusOK {
		t.Fatalf("respond: %d %s", st, b)
	}
	if st, b := s.Request("POST", "/v1/turns/ap/permissions", map[string]any{"permission_profile": map[string]any{"profile": "reviewer"}}); st != http.StatusOK {
		t.Fatalf("change to reviewer: %d %s", st, b)
	}
	if d := runtime.decide("ap", "p1", "apply_patch", patch); d.Decision == "allow" {
		t.Errorf("the patch approved before the change to a read-only, never-asking profile is allowed after it: %s (%s by %s)", d.Decision, d.Reason, d.DecidedBy)
	}
}
