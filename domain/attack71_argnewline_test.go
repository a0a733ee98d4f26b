package domain

import (
	"slices"
	"testing"
)

// TestAttack71ExecPatchArgumentSpansLines — severity: high.
//
// The attack: under a profile whose allowed_paths is the workspace
// /work/repo, the agent asks for the exec_command
//
//	cd /home/dev/.ssh && apply_patch '
//	' <<'EOF'
//	*** Begin Patch
//	*** Add File: authorized_keys
//	+ssh-ed25519 AAAA… attacker
//	*** End Patch
//	EOF
//
// Codex does not run it: maybe_parse_apply_patch
// (codex-rs/apply-patch/src/invocation.rs, extract_apply_patch_from_bash)
// matches its cd form, whose program is `(command name: (command_name
// (word) @apply_name))` with no anchor after the name: the program may have
// arguments, and a quoted argument ('…', "…", $'…') may hold a line's end.
// The heredoc redirect belongs to the redirected_statement around the
// whole list, wherever its line is. Checked with tree-sitter 0.25 and
// tree-sitter-bash 0.25.1 and the query verbatim: the match has cd_path
// "/home/dev/.ssh" and the heredoc the whole patch, so Codex writes
// /home/dev/.ssh/authorized_keys itself, outside the command's sandbox.
//
// Why it works: domain/classify.go execPatch takes the program only where
// a "<<" follows it on its own line (heredocsOnLines: a line continuation
// is followed, a quoted line's end is not). Here the line of apply_patch
// holds no "<<", no program is found, ok is false, and the call is judged
// as a plain command run in the sandbox (no file_write, no patch_paths);
// allowed_paths lets it run.
//
// Suggested fix: after a program word, follow quoted strings (and $(…),
// backquotes) across lines when looking for the "<<", or simply refuse an
// exec_command whose script names apply_patch/applypatch as a word and
// holds a "<<" anywhere after it on a later line when no patch was read
// (no honest Codex call splits its program's arguments over lines).
//
// CONTROL: the same script with the argument on one line ('x') is judged
// in /home/dev/.ssh and denied.
func TestAttack71ExecPatchArgumentSpansLines(t *testing.T) {
	body := " <<'EOF'\n*** Begin Patch\n*** Add File: authorized_keys\n+ssh-ed25519 AAAAC3Nza attacker\n*** End Patch\nEOF\n"
	decide := repoExecDecider(t)
	const target = "/home/dev/.ssh/authorized_keys"
	// CONTROL: the argument on the program's line.
	d, a, err := decide("cd /home/dev/.ssh && apply_patch 'x'" + body)
	if err != nil || !slices.Contains(a.Files, FileOp{Path: target, Access: AccessWrite}) || d.Behavior != BehaviorDeny {
		t.Fatalf("control: %s (%v), files %+v; want a judged write of %s, denied", d.Behavior, err, a.Files, target)
	}
	// ATTACK: a quoted argument holding a line's end, which Codex's
	// grammar takes as one word of the program's command.
	for _, arg := range []string{"'\n'", "\"\n\"", "$'\n'"} {
		cmd := "cd /home/dev/.ssh && apply_patch " + arg + body
		d, a, err := decide(cmd)
		if err != nil {
			continue // refused: nothing is written
		}
		if d.Behavior != BehaviorDeny || !slices.Contains(a.Files, FileOp{Path: target, Access: AccessWrite}) {
			t.Errorf("%q: %s by %s, files judged %+v (Also %q); Codex matches its cd form (the program's argument spans a line) and writes %s outside allowed_paths",
				cmd[:40], d.Behavior, d.DecidedBy, a.Files, a.Also, target)
		}
	}
}
