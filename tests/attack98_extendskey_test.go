package tests

import (
	"path/filepath"
	"strings"
	"testing"
)

// attack98ReviewerProfiles: two read-only reviewers over the :workspace
// built-in. "control" narrows the roots with the parent's own key;
// "subtree" with the same key and a trailing "/**", which the README says
// "means the subtree, which a path already is".
const attack98ReviewerProfiles = `
[permissions.control]
extends = ":workspace"
[permissions.control.filesystem]
":workspace_roots" = "read"

[permissions.subtree]
extends = ":workspace"
[permissions.subtree.filesystem]
":workspace_roots/**" = "read"
`

// TestAttack98_ExtendsKeySpellingHook is TestAttack98_ExtendsKeySpelling
// (profilefile) end to end: a Claude Code project whose operator selected
// a "read-only reviewer" that extends :workspace and writes its roots
// read with "/**" gets Claude Code's Write allowed without anyone asked:
// flatten keeps the parent's ":workspace_roots" = "write" beside the
// child's ":workspace_roots/**" = "read", and write wins the tie.
//
// Control: the reviewer written with the parent's spelling refuses the
// Write, and both let Claude Code Read the same file.
func TestAttack98_ExtendsKeySpellingHook(t *testing.T) {
	t.Parallel()
	for _, profile := range []string{"control", "subtree"} {
		t.Run(profile, func(t *testing.T) {
			t.Parallel()
			ws := workspace(t)
			s := ccProfileServer(t, ws, attack98ReviewerProfiles, profile, nil)
			session := "sess-a98-" + profile
			s.hook(ccPayload(t, "user_prompt_submit", session, ws))
			read := s.hook(ccEdit(t, ccPayload(t, "pre_read", session, ws), map[string]any{"tool_use_id": "toolu_a98_read",
				"tool_input": map[string]any{"file_path": filepath.Join(ws, "src", "main.go")}}))
			if !strings.Contains(read, `"permissionDecision":"allow"`) {
				t.Fatalf("control: a Read under the reviewer %s: %s", profile, read)
			}
			write := s.hook(ccEdit(t, ccPayload(t, "pre_write", session, ws), map[string]any{"tool_use_id": "toolu_a98_write",
				"tool_input": map[string]any{"file_path": filepath.Join(ws, "src", "main.go"), "content": "package main // rewritten\n"}}))
			if strings.Contains(write, `"permissionDecision":"allow"`) {
				t.Errorf("the read-only reviewer %q lets Claude Code's Write through: %s", profile, write)
			}
		})
	}
}
