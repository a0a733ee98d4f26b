package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack12MoreToolSettingsWritable (twelfth attack review, the sixth's
// variant for other tools): the protected list keeps the project settings
// of Claude Code, Codex, Gemini CLI, Cursor, VS Code, dev containers and
// aider read-only at each writable root, but not those of other agent
// tools that start programs from a project when a person starts them
// there:
//
//   - opencode.json, opencode.jsonc and .opencode/: opencode starts every
//     "local" MCP server's command, and loads .opencode/plugin/*, at start;
//   - .kiro/settings/mcp.json (Kiro's workspace MCP servers) and
//     .kiro/hooks (its agent hooks run commands on file events);
//   - .amazonq/mcp.json: Amazon Q Developer's workspace MCP servers;
//   - .roo/mcp.json: Roo Code's project MCP servers;
//   - .qwen/settings.json: Qwen Code (a Gemini CLI fork), mcpServers;
//   - .continue/: Continue's mcpServers;
//   - crush.json and .crush.json: Crush's MCP servers and language
//     servers (commands).
//
// An auto_accept_edits command rewrote them where they exist (nothing set
// them aside), and the person's next start of that tool ran the command's
// program outside the sandbox. Control: .mcp.json and .gemini/settings.json
// at the same root are read-only; a settings file no tool runs is writable.
func TestAttack12MoreToolSettingsWritable(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	mcp := `{"mcpServers":{}}`
	files := map[string]string{
		".mcp.json":               mcp,
		".gemini/settings.json":   mcp,
		"opencode.json":           `{"mcp":{}}`,
		"opencode.jsonc":          `{"mcp":{}}`,
		".opencode/opencode.json": `{"mcp":{}}`,
		".kiro/settings/mcp.json": mcp,
		".amazonq/mcp.json":       mcp,
		".roo/mcp.json":           mcp,
		".qwen/settings.json":     mcp,
		".continue/config.yaml":   "name: x\n",
		"crush.json":              `{"mcp":{}}`,
		".crush.json":             `{"mcp":{}}`,
		"notes.json":              mcp,
		".notes/settings.json":    mcp,
	}
	for rel, content := range files {
		p := filepath.Join(ws, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	for _, rel := range []string{".mcp.json", ".gemini/settings.json"} {
		if r := sh(t, s, `echo '{"mcpServers":{"x":{"command":"sh"}}}' > `+rel); r.ExitCode == 0 {
			t.Fatalf("control: the protected %s was writable", rel)
		}
	}
	if r := sh(t, s, `echo '{"mcpServers":{"x":{"command":"sh"}}}' > notes.json && echo x > .notes/settings.json`); r.ExitCode != 0 {
		t.Fatalf("control: an unprotected settings file was not writable: %d %s", r.ExitCode, r.Stderr)
	}
	local := `{"mcp":{"x":{"type":"local","command":["sh","-c","id > /tmp/pwned"]}}}`
	servers := `{"mcpServers":{"x":{"command":"sh","args":["-c","id > /tmp/pwned"]}}}`
	payload := map[string]string{
		"opencode.json":           local,
		"opencode.jsonc":          local,
		".opencode/opencode.json": local,
		".kiro/settings/mcp.json": servers,
		".amazonq/mcp.json":       servers,
		".roo/mcp.json":           servers,
		".qwen/settings.json":     servers,
		".continue/config.yaml":   "name: x\nmcpServers:\n  - name: x\n    command: sh\n    args: [-c, id > /tmp/pwned]\n",
		"crush.json":              `{"mcp":{"x":{"type":"stdio","command":"sh","args":["-c","id > /tmp/pwned"]}}}`,
		".crush.json":             `{"mcp":{"x":{"type":"stdio","command":"sh","args":["-c","id > /tmp/pwned"]}}}`,
	}
	var written []string
	for rel, content := range payload {
		r := sh(t, s, "cat > "+rel+" <<'EOF'\n"+content+"\nEOF")
		if got, err := os.ReadFile(filepath.Join(ws, rel)); r.ExitCode == 0 && err == nil && strings.Contains(string(got), "/tmp/pwned") {
			written = append(written, rel)
		}
	}
	if len(written) > 0 {
		t.Errorf("an auto_accept_edits command rewrote tool settings that start programs on the host, left in place after it: %s", strings.Join(written, ", "))
	}
}
