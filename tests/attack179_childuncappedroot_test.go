package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestAttack179ChildKeepsUncappedRootOverParentsCarveOut: the hundred-and-
// seventy-ninth review, against review 177's PathRule.Capped. A parent's
// change of permissions narrows its children (NarrowToParent), whose file
// rules become the child's own followed by the parent's new ones it lacks
// (mergedRules: "the rules of both bind, decisions take the narrower").
// But a read-only profile's root rule and the same root's rule that
// capRoots marked Capped differ only in that flag: both are kept, and
// approvableRules raises the one not Capped to write, which ties with the
// Capped read at the root's own pattern; write wins a tie (tieRank). So a
// parent started under a read-only profile with a project root at
// vendor/lib, and then narrowed by a person to a profile that keeps vendor
// read-only (`[":workspace_roots"] "vendor" = "read"`: the parent now
// refuses a write into vendor/lib before anyone is asked), leaves its
// child asking a person for that write, and allowing it once they click:
// the child is wider than its parent (REFERENCE §6), and the narrowing the
// person made was not carried to it.
//
// Controls: before the change, a write into vendor/lib asks in the parent
// and in the child; after it, the parent refuses it, and a child started
// after the change refuses it too.
func TestAttack179ChildKeepsUncappedRootOverParentsCarveOut(t *testing.T) {
	t.Parallel()
	profiles := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.open]
extends = ":read-only"
[permissions.carved]
extends = ":read-only"
[permissions.carved.filesystem.":workspace_roots"]
"vendor" = "read"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles)
	root := workspace(t)
	lib := filepath.Join(root, "vendor", "lib")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "p", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"profile": "open"}, "workspace_root": root,
		"project_roots": []string{lib}}, http.StatusCreated, nil)
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "c", "workspace_id": "ws", "thread_id": "th",
		"parent_turn_id": "p"}, http.StatusCreated, nil)
	target := filepath.Join(lib, "hook.js")
	if d := runtime.decide("p", "w0", "apply_patch", patch(target)); d.Decision != "ask" {
		t.Fatalf("control: before the change, a write into vendor/lib asks in the parent: %+v", d)
	}
	if d := runtime.decide("c", "w0", "apply_patch", patch(target)); d.Decision != "ask" {
		t.Fatalf("control: before the change, a write into vendor/lib asks in the child: %+v", d)
	}
	// A person (the service's own credential) narrows the parent.
	if st, b := s.Request("POST", "/v1/turns/p/permissions", map[string]any{"permission_profile": map[string]any{"profile": "carved"}}); st != http.StatusOK {
		t.Fatalf("narrowing the parent to carved: %d %s", st, b)
	}
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "late", "workspace_id": "ws", "thread_id": "th",
		"parent_turn_id": "p"}, http.StatusCreated, nil)
	if d := runtime.decide("p", "w1", "apply_patch", patch(target)); d.Decision != "deny" {
		t.Fatalf("control: after the change, the parent refuses a write into its carve-out: %+v", d)
	}
	if d := runtime.decide("late", "w1", "apply_patch", patch(target)); d.Decision != "deny" {
		t.Fatalf("control: a child started after the change refuses it too: %+v", d)
	}
	d := runtime.decide("c", "w1", "apply_patch", patch(target))
	if d.Decision != "deny" {
		t.Errorf("the child started before its parent was narrowed to carved: a write into vendor/lib, which its parent now refuses, is %s (%s, refusal %q): its old root rule, not Capped, is raised for approval and wins the tie with the parent's Capped one",
			d.Decision, d.Reason, d.Refusal)
	}
	if d.Request != nil {
		s.respond(d.Request.RequestID, "allow_once")
		if d := runtime.decide("c", "w1", "apply_patch", patch(target)); d.Decision == "allow" {
			t.Errorf("and once a person allows it, the child writes into the carve-out its parent refuses (%s)", d.Reason)
		}
	}
}
