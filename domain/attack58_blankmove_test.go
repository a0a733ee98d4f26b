package domain

import (
	"encoding/json"
	"testing"
)

// TestAttack58BlankMoveTarget: a Codex patch whose "*** Move to: " line
// names a file of white space only ("*** Move to:    ") moves the updated
// file there, and the classifier judges no file for it: the write is
// allowed where allowed_paths (or the roots) refuse it.
//
// Why: Codex's parser (codex-rs/apply-patch/src/parser.rs, parse_one_hunk)
// takes the move target from the line as written, untrimmed:
// `remaining_lines.first().and_then(|x| x.strip_prefix("*** Move to: "))`,
// so "*** Move to:    " is the target "   " (three spaces), which Codex
// joins to the patch's directory (effective_cwd.join, the turn's cwd or a
// `cd DIR &&` before the here-document of an exec_command) and writes
// (create_dir_all, then the new content), removing the source.
// codexPatchNames (domain/classify.go) trims the whole line first
// (strings.TrimSpace), so the line no longer carries the marker's own
// trailing space, and a name that trims to "" is skipped besides: no
// FileOp is judged for the target, neither by allowed_paths (Evaluate) nor
// by the resource checks, which see the source only.
//
// Through exec_command the directory is the script's `cd`, which nothing
// judges unless a name is joined to it: `cd ~/.bashrc.d && apply_patch
// <<'EOF' …` writes ~/.bashrc.d/"   ", which the default ~/.bashrc of
// Fedora and RHEL sources (`for rc in ~/.bashrc.d/*; do . "$rc"`), with
// content the patch chooses, outside every root, by Codex outside the
// command's sandbox.
//
// Controls: the same patches moving to a named file outside the list are
// denied by allowed_paths; an update in place is allowed.
//
// Severity: high (a file written outside allowed_paths and the roots with
// no one asked; through exec_command, a shell startup file's directory).
func TestAttack58BlankMoveTarget(t *testing.T) {
	snapshot := func(mode Mode, allowed ...string) TurnExecutionSecuritySnapshot {
		t.Helper()
		s, err := ResolveSnapshot(SnapshotInputs{
			Profile: ResolveProfile(&ProfileRequest{Mode: mode, AllowedPaths: allowed}, SourceComposer),
			Cwd:     "/work/repo", WorkspaceRoot: "/work/repo", ExecutionBackend: BackendNative,
			Kernel: KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true},
		})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	decide := func(s *TurnExecutionSecuritySnapshot, tool string, args map[string]any) (Decision, Action) {
		t.Helper()
		raw, _ := json.Marshal(args)
		a, err := Classify(Invocation{ToolName: tool, Arguments: raw}, s.Sandbox.Cwd, nil)
		if err != nil {
			// Refused as an invalid patch: nothing is written.
			return Decision{Behavior: BehaviorDeny, DecidedBy: err.Error()}, a
		}
		return Evaluate(s, &a, nil), a
	}
	patch := func(src, move string) string {
		p := "*** Begin Patch\n*** Update File: " + src + "\n"
		if move != "" {
			p += "*** Move to: " + move + "\n"
		}
		return p + "@@\n-old\n+echo pwned\n*** End Patch\n"
	}

	// The apply_patch tool under auto_accept_edits, files limited to src:
	// Codex moves src/a.go to /work/repo/"   ", outside src.
	aae := snapshot(ModeAutoAcceptEdits, "/work/repo/src")
	if d, a := decide(&aae, "apply_patch", map[string]any{"patch": patch("src/a.go", "")}); d.Behavior != BehaviorAllow {
		t.Fatalf("control: an update in src: %s %s (%+v)", d.Behavior, d.DecidedBy, a.Files)
	}
	if d, a := decide(&aae, "apply_patch", map[string]any{"patch": patch("src/a.go", "b.go")}); d.Behavior != BehaviorDeny {
		t.Fatalf("control: a move to /work/repo/b.go: %s (%+v), want deny by allowed_paths", d.Behavior, a.Files)
	}
	if d, a := decide(&aae, "apply_patch", map[string]any{"patch": patch("src/a.go", "   ")}); d.Behavior != BehaviorDeny {
		t.Errorf("apply_patch moving src/a.go to /work/repo/\"   \" (outside allowed_paths): %s by %s; files judged %+v", d.Behavior, d.DecidedBy, a.Files)
	}

	// exec_command: the directory is the script's cd, anywhere.
	fa := snapshot(ModeFullAccess, "/work/repo")
	script := func(move string) map[string]any {
		return map[string]any{"cmd": "cd /home/dev/.bashrc.d && apply_patch <<'EOF'\n" + patch("/work/repo/src/a.go", move) + "EOF\n"}
	}
	if d, a := decide(&fa, "exec_command", script("x")); d.Behavior != BehaviorDeny {
		t.Fatalf("control: a move to /home/dev/.bashrc.d/x: %s (%+v), want deny by allowed_paths", d.Behavior, a.Files)
	}
	if d, a := decide(&fa, "exec_command", script("   ")); d.Behavior != BehaviorDeny {
		t.Errorf("exec_command moving /work/repo/src/a.go to /home/dev/.bashrc.d/\"   \": %s by %s; files judged %+v", d.Behavior, d.DecidedBy, a.Files)
	}
}
