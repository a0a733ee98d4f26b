package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack75HookInstallWritesThroughPlantedTmpLink: `turnstile hook
// install claude-code --project DIR` merges turnstile's hooks into
// DIR/.claude/settings.json by writing DIR/.claude/settings.json.tmp with
// os.WriteFile and renaming it over the settings (cmd/turnstile/hook.go
// installInto). The project directory is the agent's: Claude Code's Bash
// runs as its user, outside the sandbox, and the README tells the person to
// approve (and so administer) as ANOTHER user than Claude Code's — the
// server's user or root, which is who then runs hook install into the
// agent's project. The agent plants
//
//	DIR/.claude/settings.json.tmp -> /path/of/a/file/of/that/user
//
// (a symlink needs no access to its target). os.WriteFile opens the name
// with O_CREATE|O_TRUNC and follows the link: the installing user's file —
// the server's admin token in <data>/token, its --claude-code-config,
// --profiles or --constraints, ~/.bashrc — is truncated and rewritten with
// the merged settings JSON, whose content the agent chose (its own
// settings.json, keys kept) and can predict (the hook entry is fixed by the
// install's flags); the rename then moves the link, not the file, so
// nothing looks amiss in the project. An admin token file so rewritten
// holds a token the agent knows from the next start; a Claude Code
// configuration rewritten with the agent's own "projects" block gives its
// sessions the mode it chose.
//
// Severity: medium (b/a: the agent rewrites a file of the administering
// user with content it chose — the admin token among them — given the
// person runs hook install into the agent's project as another user, as
// the README's advice leads to).
//
// Secure outcome: nothing outside the project's .claude/ changes; the
// temporary file is created fresh (O_CREATE|O_EXCL with a random name, as
// os.CreateTemp does, in the directory opened without following links) and
// renamed into place; a .claude or settings.json that is a symlink is
// refused (or resolved and checked to stay under the project). The control:
// the same install without the planted link writes the hooks into the
// project's settings and keeps the agent's own keys.
func TestAttack75HookInstallWritesThroughPlantedTmpLink(t *testing.T) {
	t.Parallel()
	install := func(project string) (string, string, int) {
		return runCLI(t, "hook", "install", "claude-code", "--project", project, "--server", "http://127.0.0.1:1", "--server-user", "0", "--server-key", testKey)
	}
	agentSettings := `{"permissions": {"allow": ["Bash(ls:*)"]}, "agent_key": "agent-chosen-value"}` + "\n"

	// Control: an ordinary project.
	ctl := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ctl, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ctl, ".claude", "settings.json"), []byte(agentSettings), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := install(ctl); code != 0 {
		t.Fatalf("control: hook install: exit %d\n%s\n%s", code, out, errOut)
	}
	got, err := os.ReadFile(filepath.Join(ctl, ".claude", "settings.json"))
	if err != nil || !strings.Contains(string(got), "hook claude-code") || !strings.Contains(string(got), "agent-chosen-value") {
		t.Fatalf("control: the settings after install: %v\n%s", err, got)
	}

	// The installing user's secret file, out of the agent's reach.
	private := t.TempDir()
	if err := os.Chmod(private, 0o700); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(private, "token")
	const tokenText = "0123456789abcdef0123456789abcdef-admin-token\n"
	if err := os.WriteFile(secret, []byte(tokenText), 0o600); err != nil {
		t.Fatal(err)
	}

	// The agent's project, with the link planted where install writes.
	proj := t.TempDir()
	if err := os.MkdirAll(filepath.Join(proj, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, ".claude", "settings.json"), []byte(agentSettings), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(proj, ".claude", "settings.json.tmp")); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := install(proj)
	after, err := os.ReadFile(secret)
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != tokenText {
		if len(after) > 300 {
			after = after[:300]
		}
		t.Errorf("hook install (exit %d: %s%s) wrote through the agent's planted %s into the installing user's file %s, which now holds the agent-chosen settings JSON:\n%s",
			code, strings.TrimSpace(out), strings.TrimSpace(errOut), filepath.Join(proj, ".claude", "settings.json.tmp"), secret, after)
	}
}
