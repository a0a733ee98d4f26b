package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// Review 136 (low; medium where a workspace lies on a case-insensitive
// file system): a file tool's write is judged against the protected list
// by name as written, so the same item in another case passes:
// ".VSCODE/tasks.json", ".ENVRC", ".PRE-COMMIT-CONFIG.YAML", ".BASHRC",
// ".MCP.json" are allowed without a question in auto_accept_edits. On a file system that
// finds names in any case (WSL's /mnt/c drvfs, where a Linux server's
// workspace commonly lies; vfat and exfat; an ext4 or f2fs casefold
// directory) each opens the protected file itself: VS Code runs the task
// on folder open, the person's next commit runs pre-commit's hook, direnv
// and a shell source what the agent wrote, Claude Code reads the MCP
// servers it names. The decisions already hold ".git" in any
// case (RepositoryWrite: "a case-insensitive file system finds .GIT as
// .git") and the agents' .claude, .codex and .agents and asdf's
// .tool-versions (agentSettingsRefusal: "any case"); the rest of the list
// is compared byte for byte. (The kernel
// side holds an existing item: its read-only mount and Landlock rule are on
// the dentry and inode any case reaches; a file tool writes outside it.)
//
// Control: TestAttack136_ProtectedItemOtherCaseControl.
func TestAttack136_ProtectedItemOtherCase(t *testing.T) {
	t.Parallel()
	s := editsTurn(t, "pc", "sub")
	for i, p := range []string{".VSCODE/tasks.json", ".ENVRC", ".PRE-COMMIT-CONFIG.YAML", ".BASHRC", ".MCP.json"} {
		d := s.decide("pc", "w"+strconv.Itoa(i), "apply_patch", addFilePatch(p, `{"x": 1}`))
		if d.Decision != "deny" {
			t.Errorf("a file tool's write of %s (the protected item on a file system that ignores case): %s/%s/%s, want deny as .GIT and .CLAUDE are",
				p, d.Decision, d.Reason, d.Refusal)
		}
	}
}

// TestAttack136_ProtectedItemOtherCaseControl: the items as the list spells
// them are refused, and so are .GIT/config, sub/.CLAUDE/settings.json and
// .Tool-Versions (held in any case already); an ordinary file in another
// case is written.
func TestAttack136_ProtectedItemOtherCaseControl(t *testing.T) {
	t.Parallel()
	s := editsTurn(t, "pcc", "sub")
	for i, p := range []string{".vscode/tasks.json", ".envrc", ".tool-versions", "sub/.tool-versions", ".pre-commit-config.yaml", ".bashrc", ".mcp.json",
		".GIT/config", "sub/.CLAUDE/settings.json", ".Tool-Versions", "sub/.TOOL-VERSIONS"} {
		if d := s.decide("pcc", "p"+strconv.Itoa(i), "apply_patch", addFilePatch(p, `{"x": 1}`)); d.Decision != "deny" {
			t.Errorf("control: a write of %s: %s/%s/%s, want deny", p, d.Decision, d.Reason, d.Refusal)
		}
	}
	for i, p := range []string{"README.MD", "sub/Package.JSON"} {
		if d := s.decide("pcc", "ok"+strconv.Itoa(i), "apply_patch", addFilePatch(p, "x")); d.Decision != "allow" {
			t.Errorf("control: a write of %s: %+v, want allow", p, d)
		}
	}
}

// attack136EnvDeny is a profile that keeps the workspace writable and
// denies every .env file and the secrets directory below it.
const attack136EnvDeny = `
[permissions.dev]
extends = ":workspace"
[permissions.dev.filesystem]
"**/*.env" = "deny"
":workspace_roots/secrets" = "deny"
`

// TestAttack136_ProfileDenyOtherCase: a profile's deny rules are matched
// byte for byte too ("**/*.env" on prod.env, ":workspace_roots/secrets"),
// so Claude Code's Read of prod.ENV and of SECRETS/key is allowed, while
// on a file system that finds names in any case each opens the denied
// file: the secret the profile hides is read. The kernel masks the
// secret's own dentry for commands; Claude Code's Read runs outside it.
func TestAttack136_ProfileDenyOtherCase(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	mkfilesAt(t, ws, map[string]string{"prod.ENV": "stand-in for prod.env on a case-insensitive file system\n",
		"SECRETS/key": "stand-in for secrets/key\n"})
	s := ccProfileServer(t, ws, attack136EnvDeny, "dev", nil)
	for i, rel := range []string{"prod.ENV", "SECRETS/key"} {
		if got := attack136HookRead(t, s, ws, "sess-136r", i, rel); got != "deny" {
			t.Errorf("Claude Code's Read of %s (the denied file, on a file system that ignores case): %s, want deny", rel, got)
		}
	}
}

// TestAttack136_ProfileDenyOtherCaseControl: the names as the rules spell
// them are denied; another file is read.
func TestAttack136_ProfileDenyOtherCaseControl(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	mkfilesAt(t, ws, map[string]string{"prod.env": "SECRET\n", "secrets/key": "SECRET\n", "notes.txt": "x\n"})
	s := ccProfileServer(t, ws, attack136EnvDeny, "dev", nil)
	for i, c := range []struct{ rel, want string }{{"prod.env", "deny"}, {"secrets/key", "deny"}, {"notes.txt", "allow"}} {
		if got := attack136HookRead(t, s, ws, "sess-136rc", i, c.rel); got != c.want {
			t.Errorf("control: Claude Code's Read of %s: %s, want %s", c.rel, got, c.want)
		}
	}
}

// attack136HookRead sends Claude Code's PreToolUse of a Read of rel (below
// ws) through the http hook and returns its permissionDecision.
func attack136HookRead(t *testing.T, s *Server, ws, session string, i int, rel string) string {
	t.Helper()
	p := ccEdit(t, ccPayload(t, "pre_read", session, ws), map[string]any{
		"tool_input":  map[string]any{"file_path": ws + "/" + rel},
		"tool_use_id": "toolu_136r_" + string(rune('a'+i)),
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

// mkfilesAt writes files (relative name to content) below dir.
func mkfilesAt(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
