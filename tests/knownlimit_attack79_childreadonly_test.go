//go:build knownlimits

package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestAttack79ChildOfReadOnlyParentAsksToWrite: the seventy-ninth review,
// against the seventy-fourth's fix for a change to a read-only profile that
// never asks. An admin moves a supervised turn to "reviewer" (extends
// ":read-only", policy full_access: an unattended read-only reviewer). In
// the turn itself every write is then refused as the snapshot stands
// (asIsRefusal), and its open write request is cancelled (judgeOpen). Its
// child turn (a sub-agent's, or one the runtime started with
// parent_turn_id) is bounded by the change (narrowChildren →
// NarrowToParent): its sandbox becomes read-only, but its approval table
// stays the stricter one, the child's supervised table, which asks. So in
// the child asIsRefusal never applies (the table does not allow outright),
// the Approvable snapshot makes the read-only workspace writable "once
// approved", the child's write request opened before the change stays
// open, a new write asks, and once a person answers allow_once the write is
// allowed: the delegated turn writes where its parent, which it is bounded
// by, can never write.
//
// Severity: low-medium (needs a person's allow on a prompt in the child;
// the admin's "read-only, never ask" profile holds in the parent and not
// in the turns it delegated to).
//
// Fixed would look like: a child bounded by a parent whose table allows a
// kind outright is bounded by the parent's snapshot as it stands for that
// kind (what asIsRefusal refuses in the parent is refused in the child,
// e.g. NarrowToParent locks the read-only sandbox / disabled network as a
// task cap's Locked network is, so Approvable does not widen it), and the
// change cancels the child's open requests that the parent refuses so.
//
// Control: in the parent a new write after the change is refused
// write_requires_writable_root.
func TestAttack79ChildOfReadOnlyParentAsksToWrite(t *testing.T) {
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
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "par", "workspace_id": "ws", "thread_id": "th-par",
		"permission_profile": map[string]any{"mode": "supervised"}, "workspace_root": root}, http.StatusCreated, nil)
	if st, b := runtime.Request("POST", "/v1/turns", map[string]any{"turn_id": "kid", "workspace_id": "ws", "parent_turn_id": "par"}); st != http.StatusCreated {
		t.Fatalf("child: %d %s", st, b)
	}
	patch := func(name string) map[string]any {
		return map[string]any{"patch": "*** Begin Patch\n*** Add File: " + filepath.Join(root, name) + "\n+x\n*** End Patch\n"}
	}
	if d := runtime.decide("kid", "p1", "apply_patch", patch("planted.sh")); d.Decision != "ask" || d.Request == nil {
		t.Fatalf("precondition: apply_patch in the supervised child asks: %+v", d)
	}
	if st, b := s.Request("POST", "/v1/turns/par/permissions", map[string]any{"permission_profile": map[string]any{"profile": "reviewer"}}); st != http.StatusOK {
		t.Fatalf("change to reviewer: %d %s", st, b)
	}
	if d := runtime.decide("par", "p2", "apply_patch", patch("other.sh")); d.Decision != "deny" || d.Refusal != "write_requires_writable_root" {
		t.Fatalf("control: a new write in the parent after the change: %+v, want deny write_requires_writable_root", d)
	}
	// The change bounded the child (narrowChildren runs before the
	// change's answer): its stream holds a profile_changed to a read-only
	// sandbox.
	var page struct {
		Events []storedEvent `json:"events"`
	}
	s.JSON("GET", "/v1/turns/kid/events", nil, http.StatusOK, &page)
	narrowed := false
	for _, e := range page.Events {
		var data struct {
			Snapshot struct {
				Sandbox struct {
					Mode string `json:"mode"`
				} `json:"sandbox"`
			} `json:"snapshot"`
		}
		if e.Type == "permission.profile_changed" && json.Unmarshal(e.Data, &data) == nil && data.Snapshot.Sandbox.Mode == "read_only" {
			narrowed = true
		}
	}
	if !narrowed {
		t.Fatalf("precondition: the parent's change bounds the child to a read-only sandbox: %d events, none a read-only profile_changed", len(page.Events))
	}
	if d := runtime.decide("kid", "p3", "apply_patch", patch("third.sh")); d.Decision != "deny" {
		t.Errorf("a new write in the child of the read-only, never-asking parent: %s (%s), want deny", d.Decision, d.Reason)
	}
	d := runtime.decide("kid", "p1", "apply_patch", patch("planted.sh"))
	if d.RequestStatus == "pending" && d.Request != nil {
		t.Errorf("the child's write request stays open after its parent's change to a read-only profile that never asks")
		if st, b := s.Request("POST", "/v1/approvals/"+d.Request.RequestID+"/respond", map[string]string{"resolution": "allow_once"}); st != http.StatusOK {
			t.Fatalf("respond: %d %s", st, b)
		}
		d = runtime.decide("kid", "p1", "apply_patch", patch("planted.sh"))
	}
	if d.Decision == "allow" {
		t.Errorf("the child's write is allowed after its parent was made read-only, never asking: %s (%s by %s)", d.Decision, d.Reason, d.DecidedBy)
	}
}
