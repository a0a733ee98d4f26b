package domain

import (
	"encoding/json"
	"testing"
)

// TestAttack71ExecPatchCdCommandSubstitutionRefused — severity: low (false
// deny).
//
// The honest call: an agent in a Git checkout, under a profile whose
// allowed_paths is the workspace /work/repo, edits a file at the top of
// the repository from a subdirectory:
//
//	cd "$(git rev-parse --show-toplevel)" && apply_patch <<'EOF'
//	*** Begin Patch
//	*** Update File: README.md
//	@@
//	-old
//	+new
//	*** End Patch
//	EOF
//
// Codex does not apply it itself: maybe_parse_apply_patch
// (codex-rs/apply-patch/src/invocation.rs, extract_apply_patch_from_bash)
// takes a cd argument only as `(word)`, `(string (string_content))` or
// `(raw_string)`; "$(…)" is a string holding a command_substitution and no
// string_content, and an unquoted $(…) is a command_substitution: neither
// form matches (checked with tree-sitter 0.25 and tree-sitter-bash 0.25.1
// and the query verbatim), so Codex runs the script as a command, in its
// sandbox, where apply_patch is the alias Codex puts on PATH. Nothing is
// written outside the sandbox.
//
// Why it is refused: domain/classify.go execPatch refuses every
// double-quoted cd argument holding "$" or "`" ("Codex takes a literal part
// of it for the directory", true only when the string has a literal
// part, "$X/sub"), and cdHead refuses the unquoted $(git rev-parse
// --show-toplevel), whose blanks it reads as ending the cd's word. The
// call is denied outright, though it is a plain shell command to Codex.
//
// Suggested fix: refuse a quoted cd argument with an expansion only when
// it also holds literal text (string_content), and let a cd argument that
// is nothing but one expansion — "$(…)", "$X", $(…), `…` — through as a
// script Codex does not apply (judged as the command it is).
//
// CONTROL: the same patch after `cd /work/repo` is allowed.
func TestAttack71ExecPatchCdCommandSubstitutionRefused(t *testing.T) {
	s, err := ResolveSnapshot(SnapshotInputs{
		Profile: ResolveProfile(&ProfileRequest{Mode: ModeFullAccess, AllowedPaths: []string{"/work/repo"}}, SourceComposer),
		Cwd:     "/work/repo/sub", WorkspaceRoot: "/work/repo", ExecutionBackend: BackendNative,
		Kernel: KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	body := " && apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: README.md\n@@\n-old\n+new\n*** End Patch\nEOF\n"
	decide := func(cmd string) (Decision, error) {
		raw, _ := json.Marshal(map[string]any{"cmd": cmd})
		a, err := Classify(Invocation{ToolName: "exec_command", Arguments: raw}, s.Sandbox.Cwd, nil)
		if err != nil {
			return Decision{Behavior: BehaviorDeny}, err
		}
		return Evaluate(&s, &a, nil), nil
	}
	// CONTROL: the top of the repository written out.
	if d, err := decide("cd /work/repo" + body); err != nil || d.Behavior != BehaviorAllow {
		t.Fatalf("control: %s by %s (%v); want allow", d.Behavior, d.DecidedBy, err)
	}
	// HONEST: the top found by git, which Codex runs as a command.
	for _, cd := range []string{`cd "$(git rev-parse --show-toplevel)"`, `cd $(git rev-parse --show-toplevel)`} {
		if d, err := decide(cd + body); err != nil || d.Behavior != BehaviorAllow {
			t.Errorf("%s && apply_patch <<'EOF' … (no cd form Codex matches: it runs the script in its sandbox): %s by %s (%v)", cd, d.Behavior, d.DecidedBy, err)
		}
	}
}
