package domain

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestAttack9ClaudeCodeHomeAndPaddedPaths: the ninth review. Claude Code's
// file tools open a path through expandPath (src/utils/path.ts): the path is
// trimmed (JavaScript's String.prototype.trim: blanks, line terminators,
// U+00A0, U+FEFF…), "~" and "~/…" are the home directory, the rest is
// resolved against the cwd. The hook's mapping resolved the untrimmed path
// against the session's cwd: "~/.bashrc" and " /home/u/.bashrc" were judged
// as new files in the workspace (an acceptEdits Write allowed without a
// question) while Claude Code wrote the user's ~/.bashrc; a Read or Grep of
// "~/.ssh" judged a copy the agent made in the workspace and read the real
// one.
func TestAttack9ClaudeCodeHomeAndPaddedPaths(t *testing.T) {
	for _, c := range []struct{ tool, in, opened string }{
		{"Write", `{"file_path":"~/.bashrc","content":"x"}`, "~/.bashrc"},
		{"Edit", `{"file_path":"~","old_string":"a","new_string":"b"}`, "~"},
		{"Write", `{"file_path":" /home/u/.bashrc","content":"x"}`, "/home/u/.bashrc"},
		{"Write", "{\"file_path\":\"\u00a0/home/u/.bashrc\",\"content\":\"x\"}", "/home/u/.bashrc"},
		{"Write", "{\"file_path\":\"\ufeff~/.bashrc\",\"content\":\"x\"}", "~/.bashrc"},
		{"Read", `{"file_path":"~/.ssh/id_ed25519"}`, "~/.ssh/id_ed25519"},
		{"Grep", `{"pattern":"BEGIN","path":"~/.ssh"}`, "~/.ssh"},
		{"Glob", `{"pattern":"*","path":" /etc"}`, "/etc"},
	} {
		inv, err := ClaudeCodeInvocation(c.tool, json.RawMessage(c.in), "/w")
		var fe *FieldError
		if errors.As(err, &fe) {
			continue // refused: the hook denies the call
		}
		if err != nil {
			t.Fatalf("%s %s: %v", c.tool, c.in, err)
		}
		a, err := Classify(inv, "/w", nil)
		if err != nil {
			continue
		}
		if len(a.Files) != 1 || a.Files[0].Path != c.opened {
			t.Errorf("%s %s: judged %+v; Claude Code opens %s", c.tool, c.in, a.Files, c.opened)
		}
	}
	// control: what Claude Code resolves as turnstile does is unchanged.
	for _, c := range []struct{ tool, in, path string }{
		{"Write", `{"file_path":"/w/a.txt","content":"x"}`, "/w/a.txt"},
		{"Read", `{"file_path":"rel/a.txt"}`, "/w/rel/a.txt"},
		{"Read", `{"file_path":"~user/a.txt"}`, "/w/~user/a.txt"}, // expandPath knows only ~ and ~/
		{"Read", `{"file_path":"dir/~/a.txt"}`, "/w/dir/~/a.txt"},
		{"Write", `{"file_path":"/w/a b.txt ","content":"x"}`, "/w/a b.txt"},
	} {
		inv, err := ClaudeCodeInvocation(c.tool, json.RawMessage(c.in), "/w")
		if err != nil {
			t.Fatalf("control %s %s: %v", c.tool, c.in, err)
		}
		a, err := Classify(inv, "/w", nil)
		if err != nil || len(a.Files) != 1 || a.Files[0].Path != c.path {
			t.Errorf("control %s %s: %+v %v, want %s", c.tool, c.in, a.Files, err, c.path)
		}
	}
}

// TestAttack9ClaudeCodeBashOutsideItsSandbox: the ninth review. Claude
// Code's Bash takes dangerouslyDisableSandbox: true to run the command
// outside Claude Code's own sandbox, through its permission flow, which the
// hook is. The mapping kept only command and timeout, so the call was judged,
// shown and granted as the sandboxed one: an allow_for_turn of "npm test"
// covered "npm test" with the sandbox off.
func TestAttack9ClaudeCodeBashOutsideItsSandbox(t *testing.T) {
	scope := func(in string) (string, Action) {
		inv, err := ClaudeCodeInvocation("Bash", json.RawMessage(in), "/w")
		if err != nil {
			t.Fatal(err)
		}
		a, err := Classify(inv, "/w", nil)
		if err != nil {
			t.Fatal(err)
		}
		return a.ScopeHash, a
	}
	in, _ := scope(`{"command":"npm test","description":"run the tests"}`)
	out, a := scope(`{"command":"npm test","description":"run the tests","dangerouslyDisableSandbox":true}`)
	shown := a.Summary
	for _, d := range a.Details {
		shown += "\n" + d.Value
	}
	if in == out || !strings.Contains(shown, "dangerouslyDisableSandbox") {
		t.Errorf("npm test outside the sandbox: same scope as inside %v; shown %q", in == out, shown)
	}
	// control: the description is prose for the person, not what runs.
	if other, _ := scope(`{"command":"npm test","description":"tests again"}`); other != in {
		t.Error("control: two descriptions of one command have different scopes")
	}
}

// TestAttack9ClaudeCodeNonNFCPath: the ninth review. Claude Code keeps
// paths in Unicode normal form C; with /w/K a link to the home directory,
// a Write of /w/\u212a/.bashrc (the Kelvin sign, K in NFC) was judged a new
// file in /w while the write could land in ~/.bashrc. A path not in NFC
// is refused; the control, composed accents and other scripts, is judged
// as written.
func TestAttack9ClaudeCodeNonNFCPath(t *testing.T) {
	for _, in := range []string{
		"{\"file_path\":\"/w/\u212a/.bashrc\",\"content\":\"x\"}",
		"{\"file_path\":\"/w/Re\u0301sume\u0301.txt\",\"content\":\"x\"}",
	} {
		_, err := ClaudeCodeInvocation("Write", json.RawMessage(in), "/w")
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != "tool_input.file_path" {
			t.Errorf("%s: %v, want a field error", in, err)
		}
	}
	for _, p := range []string{"/w/R\u00e9sum\u00e9.txt", "/w/\ub0b4 \ub4dc\ub77c\uc774\ube0c/a.txt", "/w/K/x"} {
		inv, err := ClaudeCodeInvocation("Write", json.RawMessage(`{"file_path":"`+p+`","content":"x"}`), "/w")
		if err != nil {
			t.Fatalf("control %s: %v", p, err)
		}
		a, err := Classify(inv, "/w", nil)
		if err != nil || len(a.Files) != 1 || a.Files[0].Path != p {
			t.Errorf("control %s: %+v %v", p, a.Files, err)
		}
	}
}
