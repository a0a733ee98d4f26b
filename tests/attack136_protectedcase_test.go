package tests

import (
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
