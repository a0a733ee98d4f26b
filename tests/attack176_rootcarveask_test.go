package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestAttack176NamedRootReopensReadCarveOutForApproval: the hundred-and-
// seventy-sixth review. A read-only profile keeps a subtree of the
// workspace read-only even for a write a person could approve
// (`[":workspace_roots"] "vendor" = "read"`): Approvable opens the
// workspace root's own rule (":workspace_roots" = read becomes write, as a
// read-only mode's root is writable "until granted") and keeps every other
// rule, so an apply_patch into vendor is refused write_requires_writable_root
// before anyone is asked. The runtime names the roots, though: with
// vendor/lib named a project root, the profile's ":workspace_roots" rule
// is expanded there too, capRoots lowers it to read (the carve-out above
// it), and approvableRules, which raises every ":workspace_roots" rule that
// reads, raises that one to write; more specific than the carve-out, it
// wins, and the same write is asked of a person (and runs once allowed).
// capRoots exists so that a root the runtime names never outranks the
// profile's own rules (the forty-eighth and forty-ninth reviews); the
// Approvable view undoes it.
//
// Control: in a turn that names no root inside vendor, the write into
// vendor is refused before anyone is asked, and a write elsewhere in the
// workspace asks.
func TestAttack176NamedRootReopensReadCarveOutForApproval(t *testing.T) {
	t.Parallel()
	profiles := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(profiles, []byte(`
[permissions.review]
extends = ":read-only"
[permissions.review.filesystem.":workspace_roots"]
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
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "plain", "workspace_id": "ws", "thread_id": "th-plain",
		"permission_profile": map[string]any{"profile": "review"}, "workspace_root": root}, http.StatusCreated, nil)
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "named", "workspace_id": "ws", "thread_id": "th-named",
		"permission_profile": map[string]any{"profile": "review"}, "workspace_root": root,
		"project_roots": []string{lib}}, http.StatusCreated, nil)

	target := filepath.Join(lib, "hook.js")
	if d := runtime.decide("plain", "w0", "apply_patch", patch(filepath.Join(root, "src", "new.go"))); d.Decision != "ask" {
		t.Fatalf("control: a write in the read-only workspace asks: %+v", d)
	}
	if d := runtime.decide("plain", "w1", "apply_patch", patch(target)); d.Decision != "deny" || d.Refusal != "write_requires_writable_root" {
		t.Fatalf("control: a write into the read-only carve-out is refused before anyone is asked: %+v", d)
	}
	d := runtime.decide("named", "w1", "apply_patch", patch(target))
	if d.Decision != "deny" {
		t.Errorf("with vendor/lib named a project root, the write into the profile's read-only carve-out is %s (%s, refusal %q): the runtime's root reopens the carve-out for a person's approval",
			d.Decision, d.Reason, d.Refusal)
	}
	if d.Request != nil {
		s.respond(d.Request.RequestID, "allow_once")
		if d := runtime.decide("named", "w1", "apply_patch", patch(target)); d.Decision == "allow" {
			t.Errorf("and once a person allows it, the write into the carve-out is allowed (%s)", d.Reason)
		}
	}
}
