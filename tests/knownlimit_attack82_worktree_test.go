//go:build knownlimits

package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack82ClaudeWorktreeWritesRefused (eighty-second review, false
// deny, low-medium): Claude Code's own worktrees live in the project at
// .claude/worktrees/<name>/ (claude --worktree NAME, a sub-agent's
// "isolation: worktree", every session of the desktop app): a session
// there has its cwd in the worktree, which holds a checkout of the
// repository. Every Write, Edit, MultiEdit and NotebookEdit of such a
// session is refused write_requires_writable_root, before anyone is asked,
// in every restricted mode: the rule that a path with a component named
// .claude anywhere below a writable root is protected (sandbox
// agentSettingsRefusal) takes the worktree's container for an agent
// settings directory. The same edit in the main checkout is allowed.
//
// Fix: read a component .claude as the agents' settings directory only
// where it holds them: below .claude/worktrees/<name>/ the worktree is a
// work tree of its own, whose own .claude (and .git pointer, .bashrc, …)
// the protected list covers as at a root; or let the Claude Code project
// configuration give the session's worktree as a project root.
func TestAttack82ClaudeWorktreeWritesRefused(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	wt := filepath.Join(ws, ".claude", "worktrees", "feature-auth")
	if err := os.MkdirAll(filepath.Join(wt, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wt, "src", "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := ccServer(t, ws, "auto_accept_edits", nil)
	const session = "sess-a82-worktree"
	write := func(id, cwd, file string) string {
		p := ccEdit(t, ccPayload(t, "pre_write", session, ws), map[string]any{"tool_use_id": id, "cwd": cwd,
			"tool_input": map[string]any{"file_path": file, "content": "package main\n\nfunc main() {}\n"}})
		return strings.TrimSpace(s.hookHTTP(p))
	}
	// Control: the same edit in the main checkout is allowed (auto_accept_edits).
	if out := write("toolu_a82_main", ws, filepath.Join(ws, "src", "main.go")); !strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Fatalf("control: an edit of src/main.go in the main checkout: %s", out)
	}
	if out := write("toolu_a82_wt", wt, filepath.Join(wt, "src", "main.go")); !strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Errorf("an edit of src/main.go in Claude Code's worktree (.claude/worktrees/feature-auth) is not allowed: %s", out)
	}
}
