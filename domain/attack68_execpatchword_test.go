package domain

import (
	"slices"
	"testing"
)

// TestAttack68ExecPatchNameInsideAnotherWord — severity: low (false deny).
//
// The honest call: an agent working on a patch tool (turnstile's own repo,
// say) writes a test fixture with the shell, in its workspace, under a
// profile whose allowed_paths is the workspace /work/repo:
//
//	cat > tests/fixtures/apply_patch_abs.txt <<'EOF'
//	*** Begin Patch
//	*** Update File: /etc/hosts
//	@@
//	-127.0.0.1 localhost
//	+127.0.0.1 localhost example.test
//	*** End Patch
//	EOF
//
// The command writes one file in the workspace, inside the sandbox. Codex
// does not take it for a patch: maybe_parse_apply_patch
// (codex-rs/apply-patch/src/invocation.rs, extract_apply_patch_from_bash)
// needs a command whose name is the word `apply_patch` or `applypatch`
// (`(command_name (word) @apply_name)` with `#any-of?`), and here the
// command is `cat` and "apply_patch" is part of the word
// tests/fixtures/apply_patch_abs.txt. It runs the command.
//
// Why it is refused: domain/classify.go execPatch finds the program by
// substring (strings.Index(script, "apply_patch")) anywhere before a "<<"
// on its line, so the fixture's file name makes the whole here-document an
// exec patch; its header is judged as a write of /etc/hosts (Also =
// file_write, AlsoTool = apply_patch) and allowed_paths denies the honest
// command. A fixture naming "~/x" is refused outright (homeError), and with
// denied_tools ["apply_patch"] every such command is denied.
//
// Suggested fix: take the program only as a whole shell word — preceded by
// the start, a blank or an operator (`;&|(`), followed by a blank or "<" —
// as Codex's grammar does (a word like apply_patch.sh, x/apply_patch or
// apply_patch_abs.txt is another command's argument or another program).
//
// CONTROL: the same command writing tests/fixtures/abs.txt is decided as
// any shell command.
//
// (Since the hundred-and-nineteenth review a shell command the table allows
// outright under a restricted allowed_paths is denied, decided_by
// allowed_paths, as its files are not known: the control and the honest
// command are both denied so. What this test holds is that the honest
// command is not taken for a patch: judged like the control, with no write
// of /etc/hosts.)
func TestAttack68ExecPatchNameInsideAnotherWord(t *testing.T) {
	fixture := " <<'EOF'\n*** Begin Patch\n*** Update File: /etc/hosts\n@@\n-127.0.0.1 localhost\n+127.0.0.1 localhost example.test\n*** End Patch\nEOF\n"
	decide := repoExecDecider(t)
	// CONTROL: a fixture file whose name holds no "apply_patch".
	want, ca, err := decide("cat > tests/fixtures/abs.txt" + fixture)
	if err != nil || ca.AlsoTool != "" || slices.ContainsFunc(ca.Files, func(f FileOp) bool { return f.Path == "/etc/hosts" }) {
		t.Fatalf("control: %s by %s (%v), files %+v, also %q; want a shell command", want.Behavior, want.DecidedBy, err, ca.Files, ca.AlsoTool)
	}
	// HONEST: the same command, the fixture named for what it tests.
	for _, name := range []string{"tests/fixtures/apply_patch_abs.txt", "scripts/apply_patch.sh"} {
		d, a, err := decide("cat > " + name + fixture)
		if d.Behavior != want.Behavior || d.DecidedBy != want.DecidedBy || a.AlsoTool != "" ||
			slices.ContainsFunc(a.Files, func(f FileOp) bool { return f.Path == "/etc/hosts" }) {
			t.Errorf("cat > %s <<'EOF' (a fixture written in the workspace, which Codex runs, not applies): %s by %s (%v); files judged %+v (AlsoTool %q); want as the control, %s by %s",
				name, d.Behavior, d.DecidedBy, err, a.Files, a.AlsoTool, want.Behavior, want.DecidedBy)
		}
	}
}
