package domain

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestAttack10ClaudeCodeTrailingNEL: the tenth review. A Claude Code Write
// or Edit becomes an apply_patch whose header names the file, and the
// classifier trims a patch's header line as Codex does (Go's TrimSpace,
// Unicode white space: U+0085, NEL, too), while Claude Code's expandPath
// trims with JavaScript's trim, which keeps U+0085. A Write of
// "/w/notes<NEL>" was judged a write of /w/notes, a new file, while Claude
// Code wrote /w/notes<NEL>, which may be a link (a git patch makes one) to
// ~/.bashrc that the path resolver would have followed had it been judged.
func TestAttack10ClaudeCodeTrailingNEL(t *testing.T) {
	for _, tool := range []string{"Write", "Edit", "MultiEdit"} {
		inv, err := ClaudeCodeInvocation(tool, json.RawMessage("{\"file_path\":\"/w/notes\u0085\",\"content\":\"x\"}"), "/w")
		var fe *FieldError
		if errors.As(err, &fe) {
			continue // refused: the hook denies the call
		}
		if err != nil {
			t.Fatal(err)
		}
		a, err := Classify(inv, "/w", nil)
		if err == nil && (len(a.Files) != 1 || a.Files[0].Path != "/w/notes\u0085") {
			t.Errorf("%s: judged %q; Claude Code writes /w/notes\\u0085", tool, a.Files)
		}
	}
	// control: a name with other non-ASCII letters is written as it is.
	inv, err := ClaudeCodeInvocation("Write", json.RawMessage(`{"file_path":"/w/caf\u00e9 \u00a0x.txt","content":"x"}`), "/w")
	if err != nil {
		t.Fatal(err)
	}
	if a, err := Classify(inv, "/w", nil); err != nil || len(a.Files) != 1 || a.Files[0].Path != "/w/caf\u00e9 \u00a0x.txt" {
		t.Errorf("control: %+v %v", a.Files, err)
	}
}
