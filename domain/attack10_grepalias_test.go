package domain

import (
	"errors"
	"testing"
)

// TestAttack10GrepPathUnderAnotherName: the tenth review, the variant of
// the workdir one for grep_files. Its path has two other names, file_path
// and dir_path, which the classifier reads as the tree searched, but
// Codex's grep_files reads path alone and searches the turn's cwd without
// it. {pattern: API_KEY, dir_path: src} was judged a read of the tree
// /w/src, allowed, while Codex searched /w whole, its .env (denied by a
// profile's "**/*.env" rule, which a tree read of /w meets) included. A
// path under another name that is not the cwd is refused.
func TestAttack10GrepPathUnderAnotherName(t *testing.T) {
	for _, args := range []string{`{"pattern":"API_KEY","dir_path":"src"}`, `{"pattern":"API_KEY","file_path":"/w/src"}`} {
		a, err := Classify(Invocation{ToolName: "grep_files", Arguments: []byte(args)}, "/w", nil)
		var fe *FieldError
		if !errors.As(err, &fe) {
			t.Errorf("%s accepted: %+v; Codex searches /w", args, a.Files)
		}
	}
	// control: path names the tree; another name naming the cwd is what
	// any runtime searches; list_dir and read_file keep their names.
	for _, c := range []struct{ tool, args string }{
		{"grep_files", `{"pattern":"x","path":"src"}`},
		{"grep_files", `{"pattern":"x","dir_path":"."}`},
		{"list_dir", `{"dir_path":"src"}`},
		{"read_file", `{"file_path":"src/a.go"}`},
	} {
		if _, err := Classify(Invocation{ToolName: c.tool, Arguments: []byte(c.args)}, "/w", nil); err != nil {
			t.Errorf("control %s %s: %v", c.tool, c.args, err)
		}
	}
}
