package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestLinkedRootRetargetedReopensNothing: the forty-ninth review's link
// into a denied directory, pointed there after the turn started. The
// project root <repo>/lnk leads to <repo>/app when the turn starts (judged
// there: a write), then the agent points the link at <repo>/secrets/prod.
// The sandbox's view (which decisions use too) takes a grant where its
// link leads when it is built, so the root's grant became one inside the
// deny, which a grant there reopens: a grant whose path passes a symlink
// now reopens no deny (fsView.shadow). Control: before the link moves, the
// project root's file is written through it.
func TestLinkedRootRetargetedReopensNothing(t *testing.T) {
	t.Parallel()
	root := workspace(t)
	secret := filepath.Join(root, "secrets", "prod", "db.key")
	app := filepath.Join(root, "app", "db.key")
	makeFiles(t, "s3cret\n", secret, app)
	lnk := filepath.Join(root, "lnk")
	if err := os.Symlink("app", lnk); err != nil {
		t.Fatal(err)
	}
	runtime := devProfileRuntime(t, `
[permissions.dev]
extends = ":workspace"
[permissions.dev.filesystem.":workspace_roots"]
"." = "write"
"secrets" = "deny"
`, root)
	body := map[string]any{"turn_id": "t", "workspace_id": "ws", "thread_id": "th", "permission_profile": map[string]any{"profile": "dev"},
		"workspace_root": root, "cwd": root, "project_roots": []string{lnk}}
	if st, raw := runtime.Request("POST", "/v1/turns", body); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, raw)
	}
	patch := func(file string) map[string]any {
		return map[string]any{"patch": "*** Begin Patch\n*** Update File: " + file + "\n@@\n-s3cret\n+attacker\n*** End Patch\n"}
	}
	if d := runtime.decide("t", "c0", "apply_patch", patch(filepath.Join(lnk, "db.key"))); d.Decision != "allow" {
		t.Fatalf("control: the project root's file through the link: %+v", d)
	}
	if err := os.Remove(lnk); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("secrets/prod", lnk); err != nil {
		t.Fatal(err)
	}
	for i, f := range []string{secret, filepath.Join(lnk, "db.key")} {
		if d := runtime.decide("t", "r"+string(rune('0'+i)), "read_file", map[string]any{"path": f}); d.Decision != "deny" {
			t.Errorf("after the link moved into the deny, the turn reads %s: %s %s", f, d.Decision, d.Reason)
		}
		if d := runtime.decide("t", "w"+string(rune('0'+i)), "apply_patch", patch(f)); d.Decision != "deny" {
			t.Errorf("after the link moved into the deny, the turn patches %s: %s %s", f, d.Decision, d.Reason)
		}
	}
}
