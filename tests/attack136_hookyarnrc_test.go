package tests

import (
	"encoding/json"
	"testing"
)

// TestAttack136_HookWriteToolchainFile: the Claude Code hook form of
// TestAttack136_ToolchainFilesWritable. In a project whose mode is
// auto_accept_edits, Claude Code's Write of .yarnrc (yarn-path), of
// .yarnrc.yml (yarnPath) in a subdirectory and of rust-toolchain.toml
// ([toolchain] path) is answered "allow" without a question, while the same
// Write of .tool-versions (asdf's path version, the same kind of file) is
// denied (TestAttack136_HookWriteToolchainFileControl). Claude Code writes
// the file itself, outside every sandbox, and the person's next yarn or
// cargo in the project runs the program it names.
func TestAttack136_HookWriteToolchainFile(t *testing.T) {
	ws := workspace(t)
	s := ccServer(t, ws, "auto_accept_edits", nil)
	for i, c := range []struct{ path, content string }{
		{".yarnrc", "yarn-path \"./evil.js\"\n"},
		{"src/.yarnrc.yml", "yarnPath: ../evil.cjs\n"},
		{"rust-toolchain.toml", "[toolchain]\npath = \"/tmp/evil-toolchain\"\n"},
	} {
		if got := attack136HookWrite(t, s, ws, "sess-136", i, c.path, c.content); got != "deny" {
			t.Errorf("Claude Code's Write of %s: %s, want deny (as .tool-versions): the person's next yarn or cargo there runs what it names", c.path, got)
		}
	}
}

// TestAttack136_HookWriteToolchainFileControl: .tool-versions and
// src/.tool-versions are denied; src/new.go is allowed.
func TestAttack136_HookWriteToolchainFileControl(t *testing.T) {
	ws := workspace(t)
	s := ccServer(t, ws, "auto_accept_edits", nil)
	for i, c := range []struct{ path, want string }{
		{".tool-versions", "deny"}, {"src/.tool-versions", "deny"}, {"src/new.go", "allow"},
	} {
		if got := attack136HookWrite(t, s, ws, "sess-136c", i, c.path, "nodejs path:/tmp/evil-node\n"); got != c.want {
			t.Errorf("control: Claude Code's Write of %s: %s, want %s", c.path, got, c.want)
		}
	}
}

// attack136HookWrite sends Claude Code's PreToolUse of a Write of rel
// (below ws) through the http hook and returns its permissionDecision.
func attack136HookWrite(t *testing.T, s *Server, ws, session string, i int, rel, content string) string {
	t.Helper()
	p := ccEdit(t, ccPayload(t, "pre_write", session, ws), map[string]any{
		"tool_input":  map[string]any{"file_path": ws + "/" + rel, "content": content},
		"tool_use_id": "toolu_136_" + string(rune('a'+i)),
	})
	var out struct {
		HookSpecificOutput struct {
			PermissionDecision       string `json:"permissionDecision"`
			PermissionDecisionReason string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	body := s.hookHTTP(p)
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("hook answer %q: %v", body, err)
	}
	t.Logf("%s: %s (%s)", rel, out.HookSpecificOutput.PermissionDecision, out.HookSpecificOutput.PermissionDecisionReason)
	return out.HookSpecificOutput.PermissionDecision
}
