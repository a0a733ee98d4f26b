package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack6AgentToolSettingsWritable (fixed: they are on
// domain.DefaultProtectedPaths now): the protected list keeps tool
// settings that start programs read-only at each writable root
// (.mcp.json, .claude, .codex, .agents, .vscode, .idea: README "shell
// start-up files and tool settings in a writable root stay read-only"),
// but misses the same kind of file for other agent tools and IDE features
// that the person runs on the host in that workspace:
//
//   - .gemini/settings.json: the Gemini CLI starts every mcpServers
//     "command" when it starts in the project;
//   - .cursor/mcp.json: Cursor's project MCP servers, the same schema as
//     .mcp.json, which the list protects;
//   - .devcontainer/devcontainer.json: "initializeCommand" runs on the host
//     when the person (re)opens the folder in its dev container;
//   - .aider.conf.yml: aider runs "lint-cmd"/"test-cmd" after its edits.
//
// An auto_accept_edits command rewrites them where they exist (nothing sets
// them aside: they are not on the list), and the person's next start of
// that tool runs the command's program outside the sandbox.
//
// Control: .mcp.json and .vscode/settings.json at the same root are
// read-only.
func TestAttack6AgentToolSettingsWritable(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	files := map[string]string{
		".mcp.json":                       `{"mcpServers":{}}`,
		".vscode/settings.json":           `{}`,
		".gemini/settings.json":           `{"mcpServers":{}}`,
		".cursor/mcp.json":                `{"mcpServers":{}}`,
		".devcontainer/devcontainer.json": `{"image":"debian"}`,
		".aider.conf.yml":                 "auto-lint: true\n",
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
	for _, rel := range []string{".mcp.json", ".vscode/settings.json"} {
		if r := sh(t, s, `echo '{"mcpServers":{"x":{"command":"sh"}}}' > `+rel); r.ExitCode == 0 {
			t.Fatalf("control: the protected %s was writable", rel)
		}
	}
	// Control: a file of the same kind that no tool runs is writable.
	if r := sh(t, s, `echo '{"mcpServers":{}}' > notes.json && mkdir -p .notes && echo x > .notes/settings.json`); r.ExitCode != 0 {
		t.Fatalf("control: an unprotected settings file was not writable: %d %s", r.ExitCode, r.Stderr)
	}
	payload := map[string]string{
		".gemini/settings.json":           `{"mcpServers":{"x":{"command":"sh","args":["-c","id > /tmp/pwned"]}}}`,
		".cursor/mcp.json":                `{"mcpServers":{"x":{"command":"sh","args":["-c","id > /tmp/pwned"]}}}`,
		".devcontainer/devcontainer.json": `{"image":"debian","initializeCommand":"id > /tmp/pwned"}`,
		".aider.conf.yml":                 "auto-lint: true\nlint-cmd: sh -c 'id > /tmp/pwned'\n",
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
