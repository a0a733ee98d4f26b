package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack177WorkspaceRootInsideCarveOutUnderAllowedRoots: the hundred-
// and-seventy-seventh review, against review 176's cappedRoot. Under the
// operator's allowed_roots, a profile's roots-relative keys hold "as if the
// turn were rooted at each directory between the allowed root a root lies
// in and the root" (README; capRoots' anchors), so a read-only profile's
// carve-out (`[":workspace_roots"] "vendor" = "read"`) must keep a turn
// rooted inside vendor from writing there. capRoots computes that cap from
// the anchors, but for a read-only profile it lowers nothing (the root's
// rule already reads), and cappedRoot only looks for a rule in the
// expanded list that caps the root: the carve-out, expanded at the anchor
// above the root, is in no list. So a turn the runtime roots at
// vendor/lib has its root raised to write for approval: an apply_patch
// into vendor/lib is asked of a person (and allowed once they click),
// where the same write in the turn rooted at the project is refused
// before anyone is asked. (Review 165's TopLevelRootAtProtectedItem is the
// same shape for the protected list.)
//
// Controls: in the turn rooted at the project, the write into vendor/lib
// is refused and one elsewhere asks; a turn rooted at src (no carve-out on
// its path) asks for a write there.
func TestAttack177WorkspaceRootInsideCarveOutUnderAllowedRoots(t *testing.T) {
	t.Parallel()
	root := workspace(t)
	lib := filepath.Join(root, "vendor", "lib")
	src := filepath.Join(root, "src")
	for _, d := range []string{lib, src} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	profiles, cons := filepath.Join(dir, "profiles.toml"), filepath.Join(dir, "constraints.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.dev]
extends = ":read-only"
[permissions.dev.filesystem.":workspace_roots"]
"vendor" = "read"
`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cons, []byte(strings.Join([]string{`allowed_profiles = ["dev"]`, `allowed_roots = ["` + root + `"]`}, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles, "--constraints", cons)
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	for id, r := range map[string]string{"proj": root, "lib": lib, "src": src} {
		runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th-" + id,
			"permission_profile": map[string]any{"profile": "dev"}, "workspace_root": r, "cwd": r}, http.StatusCreated, nil)
	}
	target := filepath.Join(lib, "hook.js")
	if d := runtime.decide("proj", "w0", "apply_patch", patch(filepath.Join(src, "new.go"))); d.Decision != "ask" {
		t.Fatalf("control: a write in the read-only workspace asks: %+v", d)
	}
	if d := runtime.decide("proj", "w1", "apply_patch", patch(target)); d.Decision != "deny" || d.Refusal != "write_requires_writable_root" {
		t.Fatalf("control: rooted at the project, a write into the carve-out is refused before anyone is asked: %+v", d)
	}
	if d := runtime.decide("src", "w0", "apply_patch", patch(filepath.Join(src, "new.go"))); d.Decision != "ask" {
		t.Fatalf("control: rooted at src, a write there asks: %+v", d)
	}
	d := runtime.decide("lib", "w1", "apply_patch", patch(target))
	if d.Decision != "deny" {
		t.Errorf("rooted at vendor/lib (inside the profile's read-only carve-out, under allowed_roots), a write there is %s (%s, refusal %q): the root is raised for a person's approval",
			d.Decision, d.Reason, d.Refusal)
	}
	if d.Request != nil {
		s.respond(d.Request.RequestID, "allow_once")
		if d := runtime.decide("lib", "w1", "apply_patch", patch(target)); d.Decision == "allow" {
			t.Errorf("and once a person allows it, the write into the carve-out is allowed (%s)", d.Reason)
		}
	}
}
