package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack100_ChainTokenAliasHook is TestAttack100_ChainTokenAlias
// (domain) end to end. The operator's team profile extends :workspace and
// gives a shared data directory outside the workspace write; a "reviewer"
// extends it and narrows that directory to read, writing the key as
// ":root" + the path (":root" is all of /, followed by a subpath it names
// that path). flatten merges the chain by chainKey, which keeps the token,
// so the parent's "<dir>" = "write" stays beside the child's
// ":root<dir>" = "read": the same pattern, the same specificity, and the
// tie goes to write. Under :workspace's auto_accept_edits table Claude
// Code's Write into the "read-only" directory is allowed without anyone
// asked.
//
// Control: the reviewer written with the parent's spelling: its Write is
// not allowed; both let Claude Code Read the file.
func TestAttack100_ChainTokenAliasHook(t *testing.T) {
	t.Parallel()
	for _, profile := range []string{"control", "tokenalias"} {
		t.Run(profile, func(t *testing.T) {
			t.Parallel()
			ws := workspace(t)
			data := t.TempDir()
			if err := os.WriteFile(filepath.Join(data, "report.csv"), []byte("a,b\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			profiles := fmt.Sprintf(`
[permissions.team]
extends = ":workspace"
[permissions.team.filesystem]
%[1]q = "write"

[permissions.control]
extends = "team"
[permissions.control.filesystem]
%[1]q = "read"

[permissions.tokenalias]
extends = "team"
[permissions.tokenalias.filesystem]
%[2]q = "read"
`, data, ":root"+data)
			s := ccProfileServer(t, ws, profiles, profile, nil)
			session := "sess-a100-" + profile
			s.hook(ccPayload(t, "user_prompt_submit", session, ws))
			target := filepath.Join(data, "report.csv")
			read := s.hook(ccEdit(t, ccPayload(t, "pre_read", session, ws), map[string]any{"tool_use_id": "toolu_a100_read",
				"tool_input": map[string]any{"file_path": target}}))
			if !strings.Contains(read, `"permissionDecision":"allow"`) {
				t.Fatalf("control: a Read of %s under the reviewer %s: %s", target, profile, read)
			}
			write := s.hook(ccEdit(t, ccPayload(t, "pre_write", session, ws), map[string]any{"tool_use_id": "toolu_a100_write",
				"tool_input": map[string]any{"file_path": target, "content": "rewritten\n"}}))
			if strings.Contains(write, `"permissionDecision":"allow"`) {
				t.Errorf("the reviewer %q narrows %s to read, but Claude Code's Write there is allowed: %s", profile, data, write)
			}
		})
	}
}
