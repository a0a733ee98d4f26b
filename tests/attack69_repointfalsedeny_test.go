package tests

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAttack69PersonRepointKeepsOldTargetReadOnly (low: a false deny of an
// honest action): a read narrowing written through a link (the profile's
// `"config" = "read"`, config -> envs/dev) is copied where the link led
// when the turn started (domain.BindCarveLinks: a protected read entry and
// a read rule at envs/dev), and State.CarveLinks carries that target into
// every later snapshot of the turn (domain/turn/decide.go decideChange:
// carried paths are bound from memory and never resolved again). The
// person re-points config -> envs/staging mid-turn and asks for an edit in
// envs/dev, which is no longer what config names; even an admin's
// re-selection of the profile (the person's only recourse short of a new
// turn) keeps envs/dev read-only, while a turn started after the re-point
// under the same profile writes it.
//
// Suggested fix: let a selection by a principal who may widen (an admin's
// re-selection) bind where the links lead now instead of the memory (the
// memory is there against another turn's removal, not against the
// person's), or drop a remembered target when the link still exists and
// leads elsewhere at a person's selection.
//
// Controls: under dev the re-pointed target is read-only to turn a (its
// deny follows the link); turn c, started after the re-point, patches
// envs/dev/app.toml.
func TestAttack69PersonRepointKeepsOldTargetReadOnly(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root for the kernel sandbox")
	}
	v := linkSetup63(t, "envs/dev", "config", `
[permissions.dev]
extends = ":workspace"
[permissions.dev.filesystem.":workspace_roots"]
"." = "write"
"config" = "read"
[permissions.dev.approvals]
policy = "full_access"
`, [2]string{"a", "dev"})
	old := filepath.Join(v.root, "envs", "dev", "app.toml")
	makeFiles(t, "x = 1\n", old, filepath.Join(v.root, "envs", "staging", "app.toml"))
	link := filepath.Join(v.root, "config")
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("envs/staging", link); err != nil {
		t.Fatal(err)
	}
	patch := func(id string) map[string]any {
		return map[string]any{"patch": "*** Begin Patch\n*** Update File: " + old + "\n@@\n-x = 1\n+x = 2 # " + id + "\n*** End Patch\n"}
	}
	// Controls.
	if d := v.runtime.decide("a", "c0", "apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Update File: " + filepath.Join(v.root, "envs", "staging", "app.toml") + "\n@@\n-x = 1\n+x = 3\n*** End Patch\n"}); d.Decision != "deny" {
		t.Fatalf("control: turn a patches the re-pointed config: %+v", d)
	}
	startTurn63(v, "c", "dev")
	if d := v.runtime.decide("c", "c1", "apply_patch", patch("c")); d.Decision != "allow" {
		t.Fatalf("control: turn c, started after the re-point, does not patch envs/dev: %+v", d)
	}

	v.admin.JSON("POST", "/v1/turns/a/permissions", map[string]any{"permission_profile": map[string]any{"profile": "dev"}}, 200, nil)
	if d := v.runtime.decide("a", "r0", "apply_patch", patch("a")); d.Decision != "allow" {
		t.Errorf("after the person re-pointed config -> envs/staging and an admin re-selected dev, turn a is refused envs/dev: %s %s", d.Decision, d.Reason)
	}
}
