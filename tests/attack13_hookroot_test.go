package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack13HookProjectRootOfTheCall: each PreToolUse narrows the
// session's turn to what its own cwd's project selects, but a selection
// was compared by its name alone (the same mode, or the same profile),
// not by the project's root. With two projects of the same mode, one
// nested in the other (ws: auto_accept_edits, ws/app: auto_accept_edits),
// the agent's own UserPromptSubmit with its cwd in ws started the session's
// next turn with ws for its root, and Claude Code's Write of ws/other/x,
// in a session that runs in ws/app, was allowed as an edit inside the
// turn's roots. The control: before the agent's prompt, the same Write
// from ws/app is not allowed, and a Write inside ws/app is.
func TestAttack13HookProjectRootOfTheCall(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	app, other := filepath.Join(ws, "app"), filepath.Join(ws, "other")
	for _, d := range []string{app, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s := ccServer(t, ws, "supervised", map[string]any{"projects": []any{
		map[string]any{"root": ws, "workspace_id": "ws-cc", "mode": "auto_accept_edits"},
		map[string]any{"root": app, "workspace_id": "ws-cc", "mode": "auto_accept_edits"}}})
	hk := roAs(s, roCreate(t, s, "claude", "runtime", "ws-cc"))
	write := func(session, id, path string) string {
		return hk.hook(ccEdit(t, ccPayload(t, "pre_write", session, app), map[string]any{"tool_use_id": id, "cwd": app,
			"tool_input": map[string]any{"file_path": path, "content": "x\n"}}))
	}
	const session = "sess-app"
	hk.hook(ccPayload(t, "user_prompt_submit", session, app))
	if got := write(session, "toolu_in", filepath.Join(app, "x")); !strings.Contains(got, `"permissionDecision":"allow"`) {
		t.Fatalf("control: a Write inside the session's project: %s", got)
	}
	if got := write(session, "toolu_out1", filepath.Join(other, "x")); strings.Contains(got, `"permissionDecision":"allow"`) {
		t.Fatalf("control: a Write outside the session's project: %s", got)
	}
	// The agent's own Bash posts a prompt with its cwd in the wider project.
	hk.hookHTTP(ccPayload(t, "user_prompt_submit", session, ws))
	if got := write(session, "toolu_out2", filepath.Join(other, "x")); strings.Contains(got, `"permissionDecision":"allow"`) {
		t.Errorf("after the agent's own UserPromptSubmit from the enclosing project, Claude Code's Write outside its own project was answered %s", got)
	}
	// The turn is narrowed to the call's project, not refused: a Write
	// inside it is still allowed.
	if got := write(session, "toolu_in2", filepath.Join(app, "y")); !strings.Contains(got, `"permissionDecision":"allow"`) {
		t.Errorf("control: a Write inside the session's project once its turn was narrowed: %s", got)
	}
}
