package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack114_HookRootChangeUnbound: a turn's roots are bound where they
// led when it started (led_to; TestSwappedRootTakesNoGrant). A Claude
// Code session's turn that a PreToolUse narrows to the project of the
// call's cwd (ccNarrowToMode: a nested project's own root, NarrowOnly with
// another workspace_root) gets a snapshot for that root with the root
// links of the turn's old snapshot (decideChange: RootLinksOf), which name
// only the old root: the new root is bound nowhere (no led_to), and Widens
// does not compare led_to, so the change counts as a narrowing. When the
// nested project's directory is then swapped for a link (by a command of
// another turn rooted above it), the turn's writes through it go where
// the link leads, outside every project.
//
// Control: a session whose turn started in the nested project (its root
// bound there) is refused the same write after the swap; before the swap
// the narrowed turn's write in the nested project is allowed.
func TestAttack114_HookRootChangeUnbound(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	nested := filepath.Join(ws, "b")
	outside := workspace(t)
	makeFiles(t, "mine\n", filepath.Join(nested, "a.txt"), filepath.Join(outside, "b.txt"))
	s := ccServer(t, ws, "auto_accept_edits", map[string]any{"projects": []any{
		map[string]any{"root": ws, "workspace_id": "ws-cc", "mode": "auto_accept_edits"},
		map[string]any{"root": nested, "workspace_id": "ws-cc", "mode": "auto_accept_edits"}}})
	hk := roAs(s, roCreate(t, s, "claude", "runtime", "ws-cc"))
	write := func(session, id, cwd, path string) string {
		return hk.hook(ccEdit(t, ccPayload(t, "pre_write", session, cwd), map[string]any{"tool_use_id": id, "cwd": cwd,
			"tool_input": map[string]any{"file_path": path, "content": "x\n"}}))
	}
	const narrowed, control = "sess-a114-narrowed", "sess-a114-control"
	// The session starts in the outer project; its call in the nested one
	// narrows the turn to the nested project's root.
	hk.hook(ccPayload(t, "user_prompt_submit", narrowed, ws))
	if got := write(narrowed, "toolu_a114_1", nested, filepath.Join(nested, "ok.txt")); !strings.Contains(got, `"permissionDecision":"allow"`) {
		t.Fatalf("setup: a write in the nested project: %s", got)
	}
	// Control session: started in the nested project.
	hk.hook(ccPayload(t, "user_prompt_submit", control, nested))
	if err := os.Rename(nested, nested+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, nested); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(nested, "b.txt")
	if got := write(control, "toolu_a114_c", ws, target); strings.Contains(got, `"permissionDecision":"allow"`) {
		t.Fatalf("control: the session started in the nested project may write %s (→ %s) after the swap: %s", target, outside, got)
	}
	if got := write(narrowed, "toolu_a114_2", ws, target); strings.Contains(got, `"permissionDecision":"allow"`) {
		t.Errorf("a turn narrowed by a hook to the nested project %s (root unbound) may write %s, which the swap points at %s: %s", nested, target, outside, got)
	}
}
