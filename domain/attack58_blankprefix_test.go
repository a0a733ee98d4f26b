package domain

import (
	"encoding/json"
	"testing"
)

// TestAttack58HeaderLeadingBlank: a Codex patch header with a second blank
// after its marker ("*** Add File:  /work/repo/src/x.go") names, to
// Codex, the relative path " /work/repo/src/x.go" (a directory named " "
// in the patch's directory); the classifier trims the name and judges the
// absolute /work/repo/src/x.go. The file written is not the file judged:
// allowed_paths and the roots are checked on a path nothing writes.
//
// Why: Codex's parse_one_hunk (codex-rs/apply-patch/src/parser.rs) trims
// the header line, then strips the marker with its one space
// (`first_line.strip_prefix("*** Add File: ")`; likewise Update and
// Delete, and Move to untrimmed): the rest, leading blanks included, is
// the PathBuf, which resolve_path_against_base joins to the effective cwd
// (relative: it starts with a blank). codexPatchNames (domain/classify.go)
// trims the rest again (strings.TrimSpace(rest)), so a name Codex reads as
// relative is judged as the absolute path after the blanks.
//
// Under auto_accept_edits with allowed_paths = [src], the patch adds
// /work/repo/" "/work/repo/src/x.go, outside src, allowed without a
// question; through exec_command after `cd DIR &&` the file lands below
// DIR/" "/, a directory nothing judged.
//
// Controls: an add in src is allowed, an add outside it (lib/y.go) is
// denied by allowed_paths.
//
// Severity: medium (a write outside allowed_paths and, through a cd,
// outside the roots; its first component below the directory is a blank
// name).
func TestAttack58HeaderLeadingBlank(t *testing.T) {
	s, err := ResolveSnapshot(SnapshotInputs{
		Profile: ResolveProfile(&ProfileRequest{Mode: ModeAutoAcceptEdits, AllowedPaths: []string{"/work/repo/src"}}, SourceComposer),
		Cwd:     "/work/repo", WorkspaceRoot: "/work/repo", ExecutionBackend: BackendNative,
		Kernel: KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	decide := func(header string) (Decision, []FileOp) {
		t.Helper()
		raw, _ := json.Marshal(map[string]any{"patch": "*** Begin Patch\n" + header + "\n+package x\n*** End Patch\n"})
		a, err := Classify(Invocation{ToolName: "apply_patch", Arguments: raw}, s.Sandbox.Cwd, nil)
		if err != nil {
			// Refused as an invalid patch: nothing is written.
			return Decision{Behavior: BehaviorDeny, DecidedBy: err.Error()}, nil
		}
		return Evaluate(&s, &a, nil), a.Files
	}
	if d, f := decide("*** Add File: src/y.go"); d.Behavior != BehaviorAllow {
		t.Fatalf("control: an add in src: %s %s %+v", d.Behavior, d.DecidedBy, f)
	}
	if d, f := decide("*** Add File: lib/y.go"); d.Behavior != BehaviorDeny {
		t.Fatalf("control: an add outside src: %s %+v, want deny", d.Behavior, f)
	}
	// Codex writes /work/repo/" /work/repo/src/x.go": outside src.
	if d, f := decide("*** Add File:  /work/repo/src/x.go"); d.Behavior != BehaviorDeny {
		t.Errorf(`"*** Add File:  /work/repo/src/x.go" (Codex: /work/repo/" /work/repo/src/x.go"): %s by %s, files judged %+v`, d.Behavior, d.DecidedBy, f)
	}
}
