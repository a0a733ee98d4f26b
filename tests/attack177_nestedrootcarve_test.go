package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestAttack177NestedRootsReopenReadCarveOut: the hundred-and-seventy-
// seventh review, against review 176's cappedRoot. A root the runtime
// names inside a read-only profile's carve-out (`[":workspace_roots"]
// "vendor" = "read"`) is no longer raised to write for approval: cappedRoot
// resolves the other rules at the root, and keeps it read when a rule more
// specific than the outermost root caps it. But it resolves them with
// every other root's rule already raised to write ("the roots raised"):
// the runtime names two nested project roots inside the carve-out
// (vendor/lib and vendor/lib/x); the outer one is capped, but for the inner
// one the deciding rule is the outer root's, raised to write, so the inner
// root is not capped and is raised: a write under vendor/lib/x is asked of
// a person (and runs once allowed), where the profile refuses it.
//
// Controls: with vendor/lib alone named (review 176's case) the write into
// vendor/lib is refused; a write elsewhere in the workspace asks.
func TestAttack177NestedRootsReopenReadCarveOut(t *testing.T) {
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
	inner := filepath.Join(lib, "x")
	if err := os.MkdirAll(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	runtime := roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "one", "workspace_id": "ws", "thread_id": "th-one",
		"permission_profile": map[string]any{"profile": "review"}, "workspace_root": root,
		"project_roots": []string{lib}}, http.StatusCreated, nil)
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "two", "workspace_id": "ws", "thread_id": "th-two",
		"permission_profile": map[string]any{"profile": "review"}, "workspace_root": root,
		"project_roots": []string{lib, inner}}, http.StatusCreated, nil)

	if d := runtime.decide("two", "w0", "apply_patch", patch(filepath.Join(root, "src", "new.go"))); d.Decision != "ask" {
		t.Fatalf("control: a write in the read-only workspace asks: %+v", d)
	}
	if d := runtime.decide("one", "w1", "apply_patch", patch(filepath.Join(lib, "hook.js"))); d.Decision != "deny" || d.Refusal != "write_requires_writable_root" {
		t.Fatalf("control: with one root named in the carve-out, a write there is refused before anyone is asked: %+v", d)
	}
	if d := runtime.decide("two", "w1", "apply_patch", patch(filepath.Join(lib, "hook.js"))); d.Decision != "deny" {
		t.Fatalf("control: with two nested roots named, a write into the outer one is refused: %+v", d)
	}
	target := filepath.Join(inner, "hook.js")
	d := runtime.decide("two", "w2", "apply_patch", patch(target))
	if d.Decision != "deny" {
		t.Errorf("with vendor/lib and vendor/lib/x named project roots, the write into the profile's read-only carve-out at %s is %s (%s, refusal %q): the inner root is raised for a person's approval",
			target, d.Decision, d.Reason, d.Refusal)
	}
	if d.Request != nil {
		s.respond(d.Request.RequestID, "allow_once")
		if d := runtime.decide("two", "w2", "apply_patch", patch(target)); d.Decision == "allow" {
			t.Errorf("and once a person allows it, the write into the carve-out is allowed (%s)", d.Reason)
		}
	}
}
