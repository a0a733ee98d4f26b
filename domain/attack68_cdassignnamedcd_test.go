package domain

import (
	"slices"
	"testing"
)

// TestAttack68ExecPatchCdAfterAssignmentNamedCd — severity: high.
//
// A variant of TestAttack68ExecPatchCdAfterAssignment that a fix reading the
// cd only "when the script does not start with cd" misses: the assignment's
// variable is itself named cd,
//
//	cd=1 cd /home/dev/.ssh && apply_patch <<'EOF'
//	*** Begin Patch
//	*** Add File: authorized_keys
//	+ssh-ed25519 AAAA… attacker
//	*** End Patch
//	EOF
//
// To tree-sitter-bash this is (command (variable_assignment name: cd value:
// 1) name: (command_name (word "cd")) argument: (word "/home/dev/.ssh")), so
// Codex's query (codex-rs/apply-patch/src/invocation.rs,
// extract_apply_patch_from_bash: nothing anchors the cd command's name to
// its start) takes cd_path "/home/dev/.ssh" and Codex writes
// /home/dev/.ssh/authorized_keys itself (checked with tree-sitter-bash and
// the query verbatim).
//
// Why it works: domain/classify.go cdDirs sees the script start with "cd"
// and reads what follows as the directory: "=1 cd /home/dev/.ssh" (before
// the "&&") and, as a word, "=1". Neither is the directory Codex takes; the
// file is judged as /work/repo/=1/authorized_keys and the like, inside
// allowed_paths.
//
// Suggested fix: read the statement's words as the grammar does — skip
// every leading NAME=value and redirection word, then require the command
// name "cd" as a whole word followed by exactly one argument word — or
// refuse an exec patch whose head before "&&" is anything but "cd WORD".
//
// CONTROL: the script without the assignment is judged in /home/dev/.ssh and
// denied by allowed_paths.
func TestAttack68ExecPatchCdAfterAssignmentNamedCd(t *testing.T) {
	script := "cd /home/dev/.ssh && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: authorized_keys\n+ssh-ed25519 AAAAC3Nza attacker\n*** End Patch\nEOF\n"
	decide := repoExecDecider(t)
	const target = "/home/dev/.ssh/authorized_keys"
	d, a, err := decide(script)
	if err != nil || !slices.Contains(a.Files, FileOp{Path: target, Access: AccessWrite}) || d.Behavior != BehaviorDeny {
		t.Fatalf("control: %s (%v), files %+v; want a judged write of %s, denied", d.Behavior, err, a.Files, target)
	}
	for _, prefix := range []string{"cd=1 ", "cd=x "} {
		d, a, err := decide(prefix + script)
		if err != nil {
			continue // refused: nothing is written
		}
		if d.Behavior != BehaviorDeny || !slices.Contains(a.Files, FileOp{Path: target, Access: AccessWrite}) {
			t.Errorf("%q: %s by %s, files judged %+v; Codex takes the cd after the assignment and writes %s outside allowed_paths",
				prefix+"cd /home/dev/.ssh && apply_patch …", d.Behavior, d.DecidedBy, a.Files, target)
		}
	}
}
