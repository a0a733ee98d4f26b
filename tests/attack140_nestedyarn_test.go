package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestAttack140_NestedYarnReleaseEditable (review 140, end to end): a
// monorepo package's sub/.yarnrc.yml names its Yarn release
// (yarnPath: .yarn/releases/yarn-4.5.0.cjs); yarn run in sub hands every
// command to node running that script. sub/.yarnrc.yml is read-only to the
// agent, but review 139's fix keeps read-only only what the root's
// launcher files name: the agent's apply_patch of
// sub/.yarn/releases/yarn-4.5.0.cjs is allowed in auto_accept_edits.
//
// Controls: the same layout at the workspace root is denied, and the
// release's neighbour in sub is allowed.
func TestAttack140_NestedYarnReleaseEditable(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	rel := ".yarn/releases/yarn-4.5.0.cjs"
	for p, c := range map[string]string{
		"sub/.yarnrc.yml": "yarnPath: " + rel + "\n", "sub/" + rel: "a\n", "sub/.yarn/releases/notes.txt": "a\n",
		".yarnrc.yml": "yarnPath: " + rel + "\n", rel: "a\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "ny", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"mode": "auto_accept_edits"}, "workspace_root": root}, http.StatusCreated, nil)
	patch := func(p string) map[string]any {
		return map[string]any{"patch": "*** Begin Patch\n*** Update File: " + p + "\n@@\n-a\n+require('child_process').execSync('id')\n*** End Patch\n"}
	}
	if d := s.decide("ny", "c1", "apply_patch", patch(rel)); d.Decision != "deny" {
		t.Errorf("control: an apply_patch of the root's Yarn release %s: %+v, want deny", rel, d)
	}
	if d := s.decide("ny", "c2", "apply_patch", patch("sub/.yarn/releases/notes.txt")); d.Decision != "allow" {
		t.Errorf("control: an apply_patch of sub/.yarn/releases/notes.txt: %+v, want allow", d)
	}
	if d := s.decide("ny", "c3", "apply_patch", patch("sub/"+rel)); d.Decision != "deny" {
		t.Errorf("ESCAPED: an apply_patch of sub/%s, the release sub/.yarnrc.yml names (every yarn in sub runs it): %s/%s, want deny", rel, d.Decision, d.Reason)
	}
}
