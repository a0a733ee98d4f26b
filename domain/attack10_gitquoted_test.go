package domain

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestAttack10QuotedGitHeader: the tenth review. The ninth decoded a
// C-quoted name in "--- " and "+++ " headers, but a "diff --git" line was
// read only with its names unquoted, and a git patch without those headers
// names its file there alone: a binary patch, a mode change, an empty file.
// After an honest hunk of README, `diff --git "a/.envrc" "b/.envrc"` and a
// GIT binary patch made git apply write the workspace's protected .envrc
// (with any content) while the call was judged a write of README alone.
func TestAttack10QuotedGitHeader(t *testing.T) {
	honest := "--- a/README\n+++ b/README\n@@ -1 +1 @@\n-a\n+b\n"
	bin := "index 7898192..5046f56 100644\nGIT binary patch\nliteral 13\nUcmYc;Ey__yEz8WQDbC;m03+oD=l}o!\n\nliteral 2\nJcmYe~0ssKc0BisN\n\n"
	for _, hdr := range []string{
		`diff --git "a/.envrc" "b/.envrc"` + "\n",
		`diff --git "a/\056envrc" "b/\056envrc"` + "\n",
		`diff --git a/.envrc "b/.envrc"` + "\n",
	} {
		args, _ := json.Marshal(map[string]string{"patch": honest + hdr + bin})
		a, err := Classify(Invocation{ToolName: "apply_patch", Arguments: args}, "/w", nil)
		if err == nil && !slices.ContainsFunc(a.Files, func(f FileOp) bool { return f.Path == "/w/.envrc" }) {
			t.Errorf("%q: judged as a write of %+v; git apply writes /w/.envrc", hdr, a.Files)
		}
	}
	// control: an unquoted header names its file, as before.
	args, _ := json.Marshal(map[string]string{"patch": "diff --git a/x.bin b/x.bin\n" + bin})
	a, err := Classify(Invocation{ToolName: "apply_patch", Arguments: args}, "/w", nil)
	if err != nil || !slices.ContainsFunc(a.Files, func(f FileOp) bool { return f.Path == "/w/x.bin" }) {
		t.Errorf("control: %+v %v", a.Files, err)
	}
}
