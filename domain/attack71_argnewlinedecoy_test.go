package domain

import (
	"slices"
	"testing"
)

// TestAttack71ExecPatchArgumentSpansLinesDecoyInBody — severity: high.
//
// A variant of TestAttack71ExecPatchArgumentSpansLines that a fix which
// only refuses "a program named, but no patch read" does not catch: here
// turnstile does read a patch — the wrong part of it. The exec_command:
//
//	cd /home/dev/.ssh && apply_patch '
//	' <<'EOF'
//	*** Begin Patch
//	*** Add File: authorized_keys
//	+ssh-ed25519 AAAA… attacker
//	+ apply_patch <<'X'
//	*** Add File: /work/repo/notes.txt
//	+hi
//	*** End Patch
//	EOF
//
// Codex (codex-rs/apply-patch/src/invocation.rs,
// extract_apply_patch_from_bash) matches its cd form — the program's
// argument '\n' spans a line, the heredoc belongs to the redirected
// statement — with cd_path "/home/dev/.ssh" and the whole heredoc (checked
// with tree-sitter 0.25 and tree-sitter-bash 0.25.1 and the query
// verbatim); parser.rs reads "+ apply_patch <<'X'" as a line of the first
// file. Codex writes /home/dev/.ssh/authorized_keys and
// /work/repo/notes.txt itself, outside the command's sandbox.
//
// Why it works: domain/classify.go execPatch finds no "<<" on the real
// program's line, but finds the word apply_patch (after "+ ") with a "<<"
// on a line of the here-document; that decoy's "<<" is taken as the
// redirect, cdHead accepts the head (it starts "cd /home/dev/.ssh &&"),
// and the body read is only what follows the decoy's line: the one name
// judged is /work/repo/notes.txt, inside allowed_paths. authorized_keys is
// never judged.
//
// Suggested fix: find the program's here-document as the grammar does
// (follow quoted strings, $(…), backquotes across lines after the program
// word), or refuse an exec patch whose chosen "<<" lies on a later line
// than the program's "&&"/start line unless joined by line continuations;
// at the least, read the names from the first line after the first "<<"
// anywhere after the cd, not after the chosen one.
//
// CONTROL: the same script with the argument on one line ('x') is judged
// as a write of /home/dev/.ssh/authorized_keys and denied.
func TestAttack71ExecPatchArgumentSpansLinesDecoyInBody(t *testing.T) {
	body := " <<'EOF'\n*** Begin Patch\n*** Add File: authorized_keys\n+ssh-ed25519 AAAAC3Nza attacker\n+ apply_patch <<'X'\n*** Add File: /work/repo/notes.txt\n+hi\n*** End Patch\nEOF\n"
	decide := repoExecDecider(t)
	const target = "/home/dev/.ssh/authorized_keys"
	// CONTROL: the argument on the program's line.
	d, a, err := decide("cd /home/dev/.ssh && apply_patch 'x'" + body)
	if err != nil || !slices.Contains(a.Files, FileOp{Path: target, Access: AccessWrite}) || d.Behavior != BehaviorDeny {
		t.Fatalf("control: %s (%v), files %+v; want a judged write of %s, denied", d.Behavior, err, a.Files, target)
	}
	// ATTACK: the argument spans a line; a decoy in the body is taken.
	d, a, err = decide("cd /home/dev/.ssh && apply_patch '\n'" + body)
	if err != nil {
		return // refused: nothing is written
	}
	if d.Behavior != BehaviorDeny || !slices.Contains(a.Files, FileOp{Path: target, Access: AccessWrite}) {
		t.Errorf("cd /home/dev/.ssh && apply_patch '\\n' <<'EOF' … (decoy \"+ apply_patch <<'X'\" in the body): %s by %s, files judged %+v; Codex applies the whole heredoc and writes %s outside allowed_paths",
			d.Behavior, d.DecidedBy, a.Files, target)
	}
}
