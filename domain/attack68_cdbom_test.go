package domain

import (
	"slices"
	"testing"
)

// TestAttack68ExecPatchCdAfterByteOrderMark — severity: high.
//
// The attack: under a profile whose allowed_paths is the workspace
// /work/repo, the agent asks for the exec_command whose script starts with a
// byte order mark (U+FEFF) before its cd:
//
//	\uFEFFcd /home/dev/.ssh && apply_patch <<'EOF'
//	*** Begin Patch
//	*** Add File: authorized_keys
//	+ssh-ed25519 AAAA… attacker
//	*** End Patch
//	EOF
//
// Codex does not run it: maybe_parse_apply_patch
// (codex-rs/apply-patch/src/invocation.rs, extract_apply_patch_from_bash)
// parses the script with tree-sitter, whose lexer skips a byte order mark at
// the start of the document (lib/src/lexer.c, ts_lexer_start: lookahead
// BYTE_ORDER_MARK at byte 0 is advanced over as skipped), so the tree is the
// same as without it and the cd form matches with cd_path "/home/dev/.ssh"
// (checked with tree-sitter-bash and the query verbatim). Codex writes
// /home/dev/.ssh/authorized_keys itself, outside the command's sandbox.
//
// Why it works: domain/classify.go cdDirs finds a cd only when
// strings.TrimSpace (or unblank, built on unicode.IsSpace) of the head
// leaves "cd" first; U+FEFF is not white space to Go (nor to Unicode's
// White_Space), so the head starts with the mark, no directory is read,
// dirs stays [""], and the patch's names are judged in the command's
// directory: /work/repo/authorized_keys, inside allowed_paths.
//
// Suggested fix: drop one leading U+FEFF from the script before execPatch
// reads it (as tree-sitter's lexer does), or refuse a script holding U+FEFF
// when it names apply_patch before a "<<".
//
// CONTROL: the same script without the mark is judged in /home/dev/.ssh and
// denied by allowed_paths.
func TestAttack68ExecPatchCdAfterByteOrderMark(t *testing.T) {
	script := "cd /home/dev/.ssh && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: authorized_keys\n+ssh-ed25519 AAAAC3Nza attacker\n*** End Patch\nEOF\n"
	decide := repoExecDecider(t)
	const target = "/home/dev/.ssh/authorized_keys"
	// CONTROL: without the mark, judged where Codex writes, and denied.
	d, a, err := decide(script)
	if err != nil || !slices.Contains(a.Files, FileOp{Path: target, Access: AccessWrite}) || d.Behavior != BehaviorDeny {
		t.Fatalf("control: %s (%v), files %+v; want a judged write of %s, denied", d.Behavior, err, a.Files, target)
	}
	// ATTACK: a byte order mark first, which tree-sitter's lexer skips.
	d, a, err = decide("\ufeff" + script)
	if err != nil {
		return // refused: nothing is written
	}
	if d.Behavior != BehaviorDeny || !slices.Contains(a.Files, FileOp{Path: target, Access: AccessWrite}) {
		t.Errorf("U+FEFF then %q: %s by %s, files judged %+v; tree-sitter skips the mark, Codex takes the cd and writes %s outside allowed_paths",
			"cd /home/dev/.ssh && apply_patch …", d.Behavior, d.DecidedBy, a.Files, target)
	}
}
