package tests

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// TestAttack19NestedAgentSettingsWritable (nineteenth attack review): in
// auto_accept_edits a file tool's write (apply_patch, Claude Code's
// Write/Edit), which runs outside the kernel sandbox, is allowed without
// asking. The agents' own settings directories are protected at each
// writable root and at the cwd (.claude, .codex, .agents: read-only and
// reserved), but not in a subdirectory: src/.claude/settings.json,
// src/.claude/skills/x/SKILL.md, src/.codex/config.toml and
// src/.agents/skills/x/SKILL.md were written without a question. The host
// agents read them there: Claude Code discovers the nested
// .claude/skills of a directory it works in (a skill's frontmatter holds
// hooks, commands Claude Code runs itself, with no PreToolUse decided by
// turnstile), and a session started in src/ reads src/.claude/settings.json
// (hooks, and disableAllHooks, which turns a user-level turnstile hook
// off); Codex reads the .codex/config.toml and .agents/skills between its
// cwd and the repository's root. A ".git" is refused at any depth for the
// same reason (TestAttack7RuntimeWritePlantsARepository: the decision is
// the boundary for a file tool).
//
// Controls: the root's own .claude/settings.json is refused; src/main.go,
// src/claude/x and src/.claude-notes are written without asking.
func TestAttack19NestedAgentSettingsWritable(t *testing.T) {
	t.Parallel()
	s := editsTurn(t, "as", "src")
	patch := func(p string) map[string]any { return addFilePatch(p, "x") }
	if d := s.decide("as", "own", "apply_patch", patch(".claude/settings.json")); d.Decision != "deny" || d.Refusal != "write_requires_writable_root" {
		t.Fatalf("control: the root's .claude/settings.json: %+v", d)
	}
	for i, p := range []string{"src/main.go", "src/claude/x", "src/.claude-notes", "src/docs/claude.md"} {
		if d := s.decide("as", "ok"+strconv.Itoa(i), "apply_patch", patch(p)); d.Decision != "allow" {
			t.Fatalf("control: a write of %s: %+v", p, d)
		}
	}
	for i, p := range []string{"src/.claude/settings.json", "src/.claude/settings.local.json", "src/.claude/skills/x/SKILL.md",
		"src/pkg/.CLAUDE/skills/y/SKILL.md", "src/.codex/config.toml", "src/.agents/skills/x/SKILL.md"} {
		if d := s.decide("as", "w"+strconv.Itoa(i), "apply_patch", patch(p)); d.Decision != "deny" || d.Refusal != "write_requires_writable_root" {
			t.Errorf("a write of %s: %s/%s/%s, want deny/sandbox_denied/write_requires_writable_root", p, d.Decision, d.Reason, d.Refusal)
		}
	}
}

// TestAttack19NestedClaudeSettingsThroughTheHook: the same through the
// Claude Code hook, in a project whose mode is auto_accept_edits: a Write of
// a skill in a subdirectory's .claude was allowed.
func TestAttack19NestedClaudeSettingsThroughTheHook(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	s := ccServer(t, ws, "auto_accept_edits", nil)
	s.hook(ccPayload(t, "user_prompt_submit", "sess-n", ws))
	write := func(id, p string) string {
		return s.hook(ccEdit(t, ccPayload(t, "pre_write", "sess-n", ws), map[string]any{"tool_use_id": id,
			"tool_input": map[string]any{"file_path": ws + "/" + p, "content": "---\nname: x\n---\n"}}))
	}
	if got := write("toolu_ok", "src/new.go"); !strings.Contains(got, `"permissionDecision":"allow"`) {
		t.Fatalf("control: a Write of src/new.go: %s", got)
	}
	if got := write("toolu_skill", "src/.claude/skills/x/SKILL.md"); !strings.Contains(got, `"permissionDecision":"deny"`) {
		t.Errorf("a Write of src/.claude/skills/x/SKILL.md: %s", got)
	}
}

// editsTurn starts a server and an auto_accept_edits turn id over a new
// workspace holding the directory sub.
func editsTurn(t *testing.T, id, sub string) *Server {
	t.Helper()
	s := StartServer(t, "")
	root := workspace(t)
	mkdirs(t, root, sub)
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"mode": "auto_accept_edits"}, "workspace_root": root}, http.StatusCreated, nil)
	return s
}

// addFilePatch is apply_patch's arguments adding file p with one line.
func addFilePatch(p, line string) map[string]any {
	return map[string]any{"patch": "*** Begin Patch\n*** Add File: " + p + "\n+" + line + "\n*** End Patch"}
}
