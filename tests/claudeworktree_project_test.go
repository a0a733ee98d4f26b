package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeWorktreeAsItsOwnProject: Claude Code's worktrees lie in the
// project's protected .claude (.claude/worktrees/NAME), where no file tool
// may write (the eighty-second review's false deny, a known limit:
// tests/knownlimit_attack82_worktree_test.go). Named as a project of its
// own in the Claude Code configuration, a worktree takes edits, and its own
// .claude stays protected.
func TestClaudeWorktreeAsItsOwnProject(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	wt := filepath.Join(ws, ".claude", "worktrees", "feature-auth")
	if err := os.MkdirAll(filepath.Join(wt, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := ccServer(t, ws, "auto_accept_edits", map[string]any{"projects": []any{
		map[string]any{"root": ws, "workspace_id": "ws-cc", "mode": "auto_accept_edits"},
		map[string]any{"root": wt, "workspace_id": "ws-wt", "mode": "auto_accept_edits"}}})
	write := func(id, file string) string {
		p := ccEdit(t, ccPayload(t, "pre_write", "sess-wt", wt), map[string]any{"tool_use_id": id, "cwd": wt,
			"tool_input": map[string]any{"file_path": file, "content": "{}\n"}})
		return strings.TrimSpace(s.hookHTTP(p))
	}
	if out := write("toolu_wt_src", filepath.Join(wt, "src", "main.go")); !strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Errorf("an edit in the worktree named as a project: %s", out)
	}
	if out := write("toolu_wt_settings", filepath.Join(wt, ".claude", "settings.json")); !strings.Contains(out, `"permissionDecision":"deny"`) {
		t.Errorf("the worktree's own .claude/settings.json: %s", out)
	}
}
