package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack69PersonRepointedLinkNeverBound (medium: needs the person's
// honest re-point of the link mid-turn; the agent then needs only another
// allowed profile on the same workspace): a carve-out written through a
// symlink is bound only where the link led when the turn's first snapshot
// was selected, and a later profile change does not bind where it leads
// now: domain/turn/decide.go bindCarveLinks resolves only the paths that
// are not already carried (State.CarveLinks / CarveLinksOf), so /ws/vault,
// carried since the start with its old target, is never resolved again.
// The person rotates the secret (ws/.vault-v2/db.key) and re-points
// vault -> .vault-v2; turn a's deny follows the link dynamically (the
// control), and an admin even re-selects turn a's profile (dev -> dev2)
// after the rotation, which used to bind where the link led at that
// moment. Nothing binds .vault-v2: turn b (profile docs, which denies
// both secret directories by their own paths, and so pins no link)
// removes vault, and turn a reads and writes the rotated secret.
//
// Suggested fix: when a carried path's link leads somewhere new at a
// profile change (or at any decision/spawn of the turn), bind the new
// target as well (a copy only narrows; keep the old one too), or hold the
// links a live turn's carve-outs pass on the host (not only inside the
// namespace of that turn's running command) so that another turn cannot
// remove them.
//
// Controls: after the re-point, turn a (and turn b) are denied the rotated
// secret; the old location stays denied to a.
func TestAttack69PersonRepointedLinkNeverBound(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root for the kernel sandbox")
	}
	v := linkSetup63(t, ".vault-data", "vault", `
[permissions.dev]
extends = ":workspace"
[permissions.dev.filesystem.":workspace_roots"]
"." = "write"
"vault" = "deny"
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
".vault-data" = "deny"
".vault-v2" = "deny"
[permissions.docs.approvals]
policy = "full_access"
`, [2]string{"a", "dev"}, [2]string{"b", "docs"})
	// The person rotates the secret and re-points the link (honest).
	rotated := filepath.Join(v.root, ".vault-v2", "db.key")
	makeFiles(t, "n3wsecret\n", rotated)
	link := filepath.Join(v.root, "vault")
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".vault-v2", link); err != nil {
		t.Fatal(err)
	}
	// Controls.
	for _, tn := range []string{"a", "b"} {
		if d := v.runtime.decide(tn, "c0", "read_file", map[string]any{"path": rotated}); d.Decision != "deny" {
			t.Fatalf("control: turn %s reads the rotated secret: %+v", tn, d)
		}
	}
	if out := v.exec("a", "c1", "cat "+rotated); strings.Contains(out, "n3wsecret") || !strings.Contains(out, `"ran":true`) {
		t.Fatalf("control: a command of turn a reads the rotated secret")
	}
	// An admin re-selects turn a's profile after the rotation.
	v.admin.JSON("POST", "/v1/turns/a/permissions", map[string]any{"permission_profile": map[string]any{"profile": "dev2"}}, 200, nil)
	if d := v.runtime.decide("a", "c2", "read_file", map[string]any{"path": v.secret}); d.Decision != "deny" {
		t.Fatalf("control: turn a reads the old secret: %+v", d)
	}

	// The attack: turn b's command removes the link.
	v.exec("b", "x0", "rm vault")
	if _, err := os.Lstat(link); !os.IsNotExist(err) {
		t.Fatalf("control: turn b did not remove vault: %v", err)
	}
	if d := v.runtime.decide("a", "r0", "read_file", map[string]any{"path": rotated}); d.Decision != "deny" {
		t.Errorf("after the person re-pointed vault -> .vault-v2 and turn b removed it, turn a reads the rotated secret: %s %s", d.Decision, d.Reason)
	}
	if out := v.exec("a", "x1", "cat "+rotated+"; echo attacker > "+rotated); strings.Contains(out, "n3wsecret") {
		t.Errorf("a command of turn a reads the rotated secret")
	}
	if b, _ := os.ReadFile(rotated); string(b) != "n3wsecret\n" {
		t.Errorf("a command of turn a wrote the rotated secret: %q", b)
	}
}
