package domain

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestAttack10LineReadAsAHunk: the tenth review. The classifier skips a
// hunk's lines by the counts of its "@@ " line, so that a removed line
// "--- x" is not read as a header; but it took any line starting "@@ " for
// a hunk, and GNU patch starts one only at "@@ -" (other text between files
// is skipped, and the next header read). After an honest hunk of README,
// "@@  -1,9 +1,9 @@" (two spaces), "@@ +1,3 -1,3 @@" or "@@ x,9 y,9 @@"
// hid the headers and hunk that made patch -p0 write the workspace's
// protected .envrc: the call was judged a write of README alone.
func TestAttack10LineReadAsAHunk(t *testing.T) {
	honest := "--- README\n+++ README\n@@ -1 +1 @@\n-a\n+b\n"
	for _, junk := range []string{"@@  -1,9 +1,9 @@\n", "@@ +1,3 -1,3 @@\n", "@@ x,9 y,9 @@\n"} {
		args, _ := json.Marshal(map[string]string{"patch": honest + junk + "--- .envrc\n+++ .envrc\n@@ -1 +1 @@\n-a\n+b\n"})
		a, err := Classify(Invocation{ToolName: "apply_patch", Arguments: args}, "/w", nil)
		if err == nil && !slices.ContainsFunc(a.Files, func(f FileOp) bool { return f.Path == "/w/.envrc" }) {
			t.Errorf("%q: judged as a write of %+v; GNU patch writes /w/.envrc", junk, a.Files)
		}
	}
	// control: a hunk's removed line that reads as a header is content.
	args, _ := json.Marshal(map[string]string{"patch": honest + "--- q.sql\n+++ q.sql\n@@ -1,3 +1 @@\n--- .envrc\n--- x\n select 1;\n"})
	a, err := Classify(Invocation{ToolName: "apply_patch", Arguments: args}, "/w", nil)
	if err != nil || len(a.Files) != 2 {
		t.Errorf("control: %+v %v", a.Files, err)
	}
}
