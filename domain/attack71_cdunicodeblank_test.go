package domain

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestAttack71ExecPatchCdUnicodeSpaceStartsDirectory — severity: high.
//
// The attack: in a full_access turn whose working directory is
// /home/dev/project (full_access still denies the sensitive paths, the
// user's ~/.ssh among them, to every file a call is judged to write), the
// agent asks for the exec_command
//
//	cd \u00a0/../../.ssh && apply_patch <<'EOF'
//	*** Begin Patch
//	*** Add File: authorized_keys
//	+ssh-ed25519 AAAA… attacker
//	*** End Patch
//	EOF
//
// (an ASCII space after cd, then a NO-BREAK SPACE starting the argument).
// Codex does not run it: maybe_parse_apply_patch
// (codex-rs/apply-patch/src/invocation.rs, extract_apply_patch_from_bash)
// matches its cd form, and tree-sitter-bash's word takes the non-ASCII
// space as part of the word: cd_path is "\u00a0/../../.ssh" (checked with
// tree-sitter 0.25 and tree-sitter-bash 0.25.1 and the query verbatim; the
// same for U+0085, U+1680, U+2003, U+2028, U+3000), a RELATIVE path whose
// first element is the space. Codex joins it to the cwd lexically
// (AbsolutePathBuf::join → absolutize_from): /home/dev/project/\u00a0/../../.ssh
// = /home/dev/.ssh, and writes /home/dev/.ssh/authorized_keys itself,
// outside the command's sandbox.
//
// Why it works: domain/classify.go cdDirs reads the cd's directory through
// strings.TrimSpace and cdArgument/shellBlank, which skip every
// unicode.IsSpace rune, NO-BREAK SPACE included: every candidate loses the
// leading space and becomes the ABSOLUTE "/../../.ssh" = /.ssh. The files
// judged are /.ssh/authorized_keys and /home/dev/project/authorized_keys,
// neither of them a sensitive path; the write Codex makes is never judged.
//
// Suggested fix: skip only what tree-sitter-bash skips between words (ASCII
// blanks, line continuations, a backslash before a blank) when reading
// the cd and its argument, keeping a non-ASCII space in the word; or refuse
// an exec patch whose head holds any non-ASCII white space.
//
// CONTROL: the same target written `cd ../.ssh` is judged as a write of
// /home/dev/.ssh/authorized_keys.
func TestAttack71ExecPatchCdUnicodeSpaceStartsDirectory(t *testing.T) {
	s, err := ResolveSnapshot(SnapshotInputs{
		Profile: ResolveProfile(&ProfileRequest{Mode: ModeFullAccess}, SourceComposer),
		Cwd:     "/home/dev/project", WorkspaceRoot: "/home/dev/project", ExecutionBackend: BackendNative,
		Kernel: KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	body := " && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: authorized_keys\n+ssh-ed25519 AAAAC3Nza attacker\n*** End Patch\nEOF\n"
	classify := func(cmd string) (Action, error) {
		raw, _ := json.Marshal(map[string]any{"cmd": cmd})
		return Classify(Invocation{ToolName: "exec_command", Arguments: raw}, s.Sandbox.Cwd, nil)
	}
	const target = "/home/dev/.ssh/authorized_keys"
	// CONTROL: the same directory, written plainly.
	a, err := classify("cd ../.ssh" + body)
	if err != nil || !slices.Contains(a.Files, FileOp{Path: target, Access: AccessWrite}) {
		t.Fatalf("control: %v, files %+v; want a judged write of %s", err, a.Files, target)
	}
	// ATTACK: a non-ASCII space starting the cd's word.
	for _, sp := range []string{"\u00a0", "\u2028", "\u3000", "\u0085"} {
		a, err := classify("cd " + sp + "/../../.ssh" + body)
		if err != nil {
			continue // refused: nothing is written
		}
		if !slices.Contains(a.Files, FileOp{Path: target, Access: AccessWrite}) {
			t.Errorf("cd %q/../../.ssh && apply_patch …: files judged %+v; Codex's cd_path is %q/../../.ssh (relative), it writes %s, which is never judged",
				sp, a.Files, sp, target)
		}
	}
}
