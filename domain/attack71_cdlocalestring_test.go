package domain

import (
	"slices"
	"testing"
)

// TestAttack71ExecPatchCdLocaleString — severity: high.
//
// The attack: under a profile whose allowed_paths is the workspace
// /work/repo, the agent asks for the exec_command
//
//	cd $"/home/dev/.ssh" && apply_patch <<'EOF'
//	*** Begin Patch
//	*** Add File: authorized_keys
//	+ssh-ed25519 AAAA… attacker
//	*** End Patch
//	EOF
//
// Codex does not run it: maybe_parse_apply_patch
// (codex-rs/apply-patch/src/invocation.rs, extract_apply_patch_from_bash)
// matches its cd form, whose argument may be `(string (string_content)
// @cd_path)`; tree-sitter-bash parses bash's locale-translated string
// $"…" as a `string` node (its "$" an anonymous child), so the match has
// cd_path "/home/dev/.ssh" (checked with tree-sitter 0.25 and
// tree-sitter-bash 0.25.1 and the query verbatim: `(command name:
// (command_name (word)) argument: (string (string_content)))`). Codex
// writes /home/dev/.ssh/authorized_keys itself, outside the command's
// sandbox.
//
// Why it works: domain/classify.go cdHead accepts the head (cdArgument
// reads `$"/home/dev/.ssh"` as one bare word, then "&&"), and execPatch
// strips a cd argument's quotes only when it starts with a quote
// (dir[0] == '\” || dir[0] == '"'): the directory stays the literal
// `$"/home/dev/.ssh"`, a relative name, and the patch's file is judged as
// /work/repo/$"/home/dev/.ssh"/authorized_keys, inside allowed_paths.
//
// Suggested fix: read `$"…"` as Codex's grammar does (drop the "$" and
// the quotes, refusing an expansion inside as for "…"), or refuse a cd
// argument starting with "$" (no honest Codex call writes one).
//
// CONTROL: the same script with a plain "…" argument is judged in
// /home/dev/.ssh and denied.
func TestAttack71ExecPatchCdLocaleString(t *testing.T) {
	body := " && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: authorized_keys\n+ssh-ed25519 AAAAC3Nza attacker\n*** End Patch\nEOF\n"
	decide := repoExecDecider(t)
	const target = "/home/dev/.ssh/authorized_keys"
	// CONTROL: a double-quoted directory.
	d, a, err := decide(`cd "/home/dev/.ssh"` + body)
	if err != nil || !slices.Contains(a.Files, FileOp{Path: target, Access: AccessWrite}) || d.Behavior != BehaviorDeny {
		t.Fatalf("control: %s (%v), files %+v; want a judged write of %s, denied", d.Behavior, err, a.Files, target)
	}
	// ATTACK: the same directory as a locale string, $"…".
	d, a, err = decide(`cd $"/home/dev/.ssh"` + body)
	if err != nil {
		return // refused: nothing is written
	}
	if d.Behavior != BehaviorDeny || !slices.Contains(a.Files, FileOp{Path: target, Access: AccessWrite}) {
		t.Errorf(`cd $"/home/dev/.ssh" && apply_patch …: %s by %s, files judged %+v; Codex's grammar reads $"…" as a string, takes its content for cd_path and writes %s outside allowed_paths`,
			d.Behavior, d.DecidedBy, a.Files, target)
	}
}
