package tests

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAttack69PlantedLinkDeniesForever (low: a false deny, not a leak):
// the sixty-third review's fix keeps a carried path's binding and does
// not resolve it again at a profile change, but a carve-out path that was
// NOT a link when the turn started (here the profile's deny "secrets",
// which does not exist in the workspace) is not carried, so a profile
// change resolves it afresh (domain/turn/decide.go bindCarveLinks →
// engine.resolveLinks) and binds a copy wherever it leads at that moment;
// State.CarveLinks then keeps that target for the rest of the turn, every
// later change and every child. Another turn's command plants
// `secrets -> app` just while turn a is changed (dev -> dev2, an admin
// narrowing app to read) and removes it at once: app, turn a's own code,
// is denied to turn a for good, though no link leads there any more.
//
// Suggested fix: bind at a change only links whose target is where the
// turn could already see them lead at its start (carried), and treat a
// carve-out path that became a link since the start as another turn's
// doing (do not bind; flag, or refuse the change), or drop a copy whose
// link no longer exists nor leads there at a later selection.
//
// Control: before the plant, dev reads app/main.go; dev2 reads it too
// when nothing was planted (turn c, changed the same way).
func TestAttack69PlantedLinkDeniesForever(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root for the kernel sandbox")
	}
	v := linkSetup63(t, ".vault-data", "vault", `
[permissions.dev]
extends = ":workspace"
[permissions.dev.filesystem.":workspace_roots"]
"." = "write"
"secrets" = "deny"
[permissions.dev.approvals]
policy = "full_access"

[permissions.dev2]
extends = "dev"
[permissions.dev2.filesystem.":workspace_roots"]
"app" = "read"

[permissions.docs]
extends = ":workspace"
[permissions.docs.filesystem.":workspace_roots"]
"." = "write"
[permissions.docs.approvals]
policy = "full_access"
`, [2]string{"a", "dev"}, [2]string{"b", "docs"}, [2]string{"c", "dev"})
	main := filepath.Join(v.root, "app", "main.go")
	if d := v.runtime.decide("a", "c0", "read_file", map[string]any{"path": main}); d.Decision != "allow" {
		t.Fatalf("control: turn a does not read app: %+v", d)
	}
	v.admin.JSON("POST", "/v1/turns/c/permissions", map[string]any{"permission_profile": map[string]any{"profile": "dev2"}}, 200, nil)
	if d := v.runtime.decide("c", "c1", "read_file", map[string]any{"path": main}); d.Decision != "allow" {
		t.Fatalf("control: turn c under dev2 does not read app: %+v", d)
	}

	v.exec("b", "x0", "ln -s app secrets")
	v.admin.JSON("POST", "/v1/turns/a/permissions", map[string]any{"permission_profile": map[string]any{"profile": "dev2"}}, 200, nil)
	v.exec("b", "x1", "rm secrets")
	if _, err := os.Lstat(filepath.Join(v.root, "secrets")); !os.IsNotExist(err) {
		t.Fatalf("control: the planted link was not removed: %v", err)
	}
	if d := v.runtime.decide("a", "r0", "read_file", map[string]any{"path": main}); d.Decision != "allow" {
		t.Errorf("after another turn briefly planted secrets -> app during turn a's change to dev2, turn a is refused app/main.go for good: %s %s", d.Decision, d.Reason)
	}
}
