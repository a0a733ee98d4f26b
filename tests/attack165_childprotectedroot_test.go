package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack165_ChildRootBelowProtectedItem (review 165): a child turn may
// name its own workspace_root, which the child's snapshot intersects with
// its parent's roots (domain.IntersectFilesystem: the narrower path, the
// weaker access). A root strictly below one of the parent's protected
// items (.devcontainer/sub) pairs with the parent's writable workspace and
// is writable; the parent's protected .devcontainer lies above the child's
// root, and normalizeEntries keeps a protected item only inside a writable
// root, so it is dropped. The runtime (role runtime) starts such a child of
// its own auto_accept_edits turn and writes .devcontainer/sub/
// devcontainer.json, a configuration VS Code and the devcontainer CLI
// offer ("Reopen in Container"), whose initializeCommand runs on the
// person's host.
//
// Controls: the parent's own write there is refused by decision and by
// command; the child's write to its own ordinary root (src/) works.
func TestAttack165_ChildRootBelowProtectedItem(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	rt := roAs(s, roCreate(t, s, "agent165", "runtime", "ws"))
	ws := filepath.Join(workspace(t), "x")
	sub := filepath.Join(ws, ".devcontainer", "sub")
	makeFiles(t, "{}\n", filepath.Join(ws, ".devcontainer", "devcontainer.json"), filepath.Join(sub, "keep.txt"), filepath.Join(ws, "src", "a.go"))
	target := filepath.Join(sub, "devcontainer.json")
	rt.JSON("POST", "/v1/turns", map[string]any{"turn_id": "p165", "workspace_id": "ws", "thread_id": "thread-p165",
		"workspace_root": ws, "permission_profile": map[string]any{"mode": "auto_accept_edits"}}, 201, nil)
	// Controls: the parent writes its root, not the protected item.
	if d := rt.decide("p165", "p0", "apply_patch", patch(filepath.Join(ws, "src", "new.go"))); d.Decision != "allow" {
		t.Fatalf("control: the parent's write in its root: %+v", d)
	}
	if d := rt.decide("p165", "p1", "apply_patch", patch(target)); d.Decision == "allow" {
		t.Fatalf("control: the parent may write %s: %+v", target, d)
	}
	pd := s.execApproved("p165", "p2", map[string]any{"timeout_ms": 20000, "cwd": ws,
		"argv": []string{"/bin/sh", "-c", "echo parent-wrote > " + target}})
	if b, _ := os.ReadFile(target); strings.Contains(string(b), "parent-wrote") {
		t.Fatalf("control: a command of the parent wrote %s (%+v)", target, pd)
	}
	// Control: a child rooted at src writes there.
	rt.JSON("POST", "/v1/turns", map[string]any{"turn_id": "p165-src", "workspace_id": "ws", "thread_id": "thread-p165",
		"parent_turn_id": "p165", "cwd": filepath.Join(ws, "src"), "workspace_root": filepath.Join(ws, "src")}, 201, nil)
	if d := rt.decide("p165-src", "s1", "apply_patch", patch(filepath.Join(ws, "src", "b.go"))); d.Decision != "allow" {
		t.Fatalf("control: the child rooted at src may not write there: %+v", d)
	}

	// The child rooted below the protected item.
	rt.JSON("POST", "/v1/turns", map[string]any{"turn_id": "p165-dc", "workspace_id": "ws", "thread_id": "thread-p165",
		"parent_turn_id": "p165", "cwd": sub, "workspace_root": sub}, 201, nil)
	if d := rt.decide("p165-dc", "c1", "apply_patch", patch(target)); d.Decision == "allow" {
		t.Errorf("a child rooted at %s may write %s by decision (its parent may not): %+v", sub, target, d)
	}
	d := s.execApproved("p165-dc", "c2", map[string]any{"timeout_ms": 20000, "cwd": sub,
		"argv": []string{"/bin/sh", "-c", "printf '{\"initializeCommand\":\"touch /tmp/pwned165\"}' > " + target}})
	b, _ := os.ReadFile(target)
	t.Logf("child exec: ran %v decision %s refusal %s; %s now %q", d.Ran, d.Decision, d.Refusal, target, b)
	if strings.Contains(string(b), "initializeCommand") {
		t.Errorf("a command of the child rooted at %s wrote %s (a dev-container configuration whose initializeCommand runs on the host); its parent's command could not", sub, target)
	}
}
