package domain

import (
	"slices"
	"testing"
)

// TestAttack71ExecPatchProgramAfterByteOrderMark — severity: high.
//
// The attack: under a profile whose allowed_paths is the workspace
// /work/repo, the agent asks for the exec_command whose script starts with
// a byte order mark (U+FEFF) directly before the program, no cd, the file
// named absolutely:
//
//	\uFEFFapply_patch <<'EOF'
//	*** Begin Patch
//	*** Add File: /home/dev/.ssh/authorized_keys
//	+ssh-ed25519 AAAA… attacker
//	*** End Patch
//	EOF
//
// Codex does not run it: maybe_parse_apply_patch
// (codex-rs/apply-patch/src/invocation.rs, extract_apply_patch_from_bash)
// parses the script with tree-sitter, whose lexer skips a byte order mark
// at byte 0 (lib/src/lexer.c, ts_lexer_start); the tree is `(program
// (redirected_statement body: (command name: (command_name (word)))
// redirect: (heredoc_redirect …)))` with apply_name "apply_patch" (checked
// with tree-sitter 0.25 and tree-sitter-bash 0.25.1 and the query
// verbatim), so the first form matches and Codex writes
// /home/dev/.ssh/authorized_keys itself (an absolute name is kept:
// parser.rs Hunk::resolve_path, resolve_path_against_base), outside the
// command's sandbox. "\uFEFFapplypatch" matches the same.
//
// Why it works: the sixty-eighth review's fix refuses a mark before "cd"
// (cdHead), but domain/classify.go execPatch finds the program only as a
// word (wordEdge): the byte before it here is 0xBF, the mark's last byte,
// no edge, so no program is found, ok is false, and the call is judged as
// a plain command run in the sandbox (no file_write, no patch_paths);
// allowed_paths lets it run.
//
// Suggested fix: drop one leading U+FEFF from the script before execPatch
// reads anything (as tree-sitter's lexer does), or count U+FEFF as a word's
// edge (the looser reading), or refuse a script starting with U+FEFF.
//
// CONTROL: the same script without the mark is judged as a write of
// /home/dev/.ssh/authorized_keys and denied.
func TestAttack71ExecPatchProgramAfterByteOrderMark(t *testing.T) {
	body := " <<'EOF'\n*** Begin Patch\n*** Add File: /home/dev/.ssh/authorized_keys\n+ssh-ed25519 AAAAC3Nza attacker\n*** End Patch\nEOF\n"
	decide := repoExecDecider(t)
	const target = "/home/dev/.ssh/authorized_keys"
	// CONTROL: without the mark.
	d, a, err := decide("apply_patch" + body)
	if err != nil || !slices.Contains(a.Files, FileOp{Path: target, Access: AccessWrite}) || d.Behavior != BehaviorDeny {
		t.Fatalf("control: %s (%v), files %+v; want a judged write of %s, denied", d.Behavior, err, a.Files, target)
	}
	// ATTACK: a byte order mark right before the program.
	for _, prog := range []string{"apply_patch", "applypatch"} {
		d, a, err := decide("\ufeff" + prog + body)
		if err != nil {
			continue // refused: nothing is written
		}
		if d.Behavior != BehaviorDeny || !slices.Contains(a.Files, FileOp{Path: target, Access: AccessWrite}) {
			t.Errorf("U+FEFF then %s <<'EOF' …: %s by %s, files judged %+v (Also %q); tree-sitter skips the mark, Codex applies the patch and writes %s outside allowed_paths",
				prog, d.Behavior, d.DecidedBy, a.Files, a.Also, target)
		}
	}
}
