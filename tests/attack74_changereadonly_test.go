package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestAttack74ChangeToReadOnlyApprovesPendingWrite: the seventy-fourth
// review. An admin moves a supervised turn mid-way to a profile that keeps
// the workspace read-only and never asks ("reviewer": extends ":read-only",
// policy full_access: an unattended read-only reviewer). A new apply_patch
// there is refused write_requires_writable_root (asIsRefusal, the
// twenty-ninth review: a call the table allows outright is judged against
// the snapshot as it stands, not the Approvable one whose read-only roots
// "may be granted" a write). The patch the agent asked for before the
// change is not: the change re-judges the open request (turn.changeTo with
// engine.judgeOpen) against the Approvable snapshot, finds its file
// writable, and the new table allows the call, so the change itself
// resolves the request allow_once (permissions_changed), with no person;
// the runtime's retry is then allowed (checkResources skips asIsRefusal
// for a call that has a request). The agent's patch is written in a turn
// the admin just made read-only.
//
// Severity: medium (no person involved: the agent opens the request
// before an expected narrowing, e.g. whenever it writes; the admin's
// read-only profile is the one the write breaks).
//
// Fixed would look like: judgeOpen also refuses what asIsRefusal refuses
// under the new snapshot when its table would allow the call outright
// (a network call where the network is disabled, a write the read-only
// sandbox does not grant), so the change cancels the request; and the
// retry of an approved call is judged by asIsRefusal when the snapshot
// changed since its request.
//
// Control: a new apply_patch after the change is denied.
func TestAttack74ChangeToReadOnlyApprovesPendingWrite(t *testing.T) {
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
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "ro", "workspace_id": "ws", "thread_id": "th-ro",
		"permission_profile": map[string]any{"mode": "supervised"}, "workspace_root": root}, http.StatusCreated, nil)
	patch := func(name string) map[string]any {
		return map[string]any{"patch": "*** Begin Patch\n*** Add File: " + filepath.Join(root, name) + "\n+x\n*** End Patch\n"}
	}
	if d := runtime.decide("ro", "p1", "apply_patch", patch("planted.sh")); d.Decision != "ask" || d.Request == nil {
		t.Fatalf("precondition: apply_patch under supervised asks: %+v", d)
	}
	if st, b := s.Request("POST", "/v1/turns/ro/permissions", map[string]any{"permission_profile": map[string]any{"profile": "reviewer"}}); st != http.StatusOK {
		t.Fatalf("change to reviewer: %d %s", st, b)
	}
	if d := runtime.decide("ro", "p2", "apply_patch", patch("other.sh")); d.Decision != "deny" {
		t.Fatalf("control: a new apply_patch after the change: %+v, want deny", d)
	}
	d := runtime.decide("ro", "p1", "apply_patch", patch("planted.sh"))
	if d.Decision == "allow" {
		t.Errorf("the patch asked before the change to a read-only, never-asking profile is allowed after it: %s (%s by %s; request %s %s)",
			d.Decision, d.Reason, d.DecidedBy, d.RequestStatus, d.Resolution)
	}
}
