package tests

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAttack63RepointedLinkDeniesForever (low: a false deny, not a leak):
// a profile change binds a copy of each carve-out where its link leads AT
// THAT MOMENT as well as where it led before (domain/turn/decide.go
// decideChange → bindCarveLinks: engine.resolveLinks now, merged with
// CarveLinksOf of the current snapshot), and every later change and
// child carries it. So another turn's command that briefly re-points the
// link (vault -> app) while turn a is changed (dev → dev2, an admin
// narrowing app to read) makes app — turn
// a's own code — denied to turn a for the rest of its life and to its
// children, though the link is put back at once; before the copies, the
// deny followed the link and app came back with it. Nothing the honest
// turn can do undoes it short of an admin widening.
//
// Suggested fix: bind, at a profile change, only where the link led at
// the turn's START (carried) and not where it leads now when that differs
// (a link the turn's own commands cannot move, re-pointed since, is
// another turn's doing: keep the start's target and refuse/flag the
// change), or drop copies whose link leads back to the original target.
//
// Control: before the re-point, dev2 reads app/main.go; after the link is
// restored, the secret is still denied.
func TestAttack63RepointedLinkDeniesForever(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root for the kernel sandbox")
	}
	v := vaultTurns(t)
	main := filepath.Join(v.root, "app", "main.go")
	if d := v.runtime.decide("a", "c0", "read_file", map[string]any{"path": main}); d.Decision != "allow" {
		t.Fatalf("control: turn a does not read app: %+v", d)
	}
	v.exec("b", "x0", "ln -sfn app vault")
	v.admin.JSON("POST", "/v1/turns/a/permissions", map[string]any{"permission_profile": map[string]any{"profile": "dev2"}}, 200, nil)
	v.exec("b", "x1", "ln -sfn .vault-data vault")
	if l, _ := os.Readlink(filepath.Join(v.root, "vault")); l != ".vault-data" {
		t.Fatalf("control: the link was not restored: %q", l)
	}
	if d := v.runtime.decide("a", "c1", "read_file", map[string]any{"path": v.secret}); d.Decision != "deny" {
		t.Fatalf("control: turn a reads the secret: %+v", d)
	}
	if d := v.runtime.decide("a", "r0", "read_file", map[string]any{"path": main}); d.Decision != "allow" {
		t.Errorf("after another turn briefly re-pointed vault -> app during turn a's narrowing to dev2 (which reads app), turn a is refused app/main.go for good: %s %s", d.Decision, d.Reason)
	}
}
