package domain

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestAttack10LoneOldHeader: the tenth review. The old name of a unified
// header ("--- x") was judged only once a "+++ " line followed it, but GNU
// patch applies a hunk after a lone "--- x" to x: after an honest hunk of
// README, "--- .envrc" and a hunk made patch -p0 write the workspace's
// protected .envrc while the call was judged a write of README alone.
func TestAttack10LoneOldHeader(t *testing.T) {
	diff := "--- README\n+++ README\n@@ -1 +1 @@\n-a\n+b\n--- .envrc\n@@ -1 +1 @@\n-a\n+b\n"
	args, _ := json.Marshal(map[string]string{"patch": diff})
	a, err := Classify(Invocation{ToolName: "apply_patch", Arguments: args}, "/w", nil)
	if err == nil && !slices.ContainsFunc(a.Files, func(f FileOp) bool { return f.Path == "/w/.envrc" }) {
		t.Errorf("judged as a write of %+v; GNU patch writes /w/.envrc", a.Files)
	}
	// control: a removed line that reads "--- x" inside a counted hunk is
	// content, not a header.
	args, _ = json.Marshal(map[string]string{"patch": "--- q.sql\n+++ q.sql\n@@ -1,2 +1 @@\n--- .envrc\n select 1;\n"})
	a, err = Classify(Invocation{ToolName: "apply_patch", Arguments: args}, "/w", nil)
	if err != nil || len(a.Files) != 1 || a.Files[0].Path != "/w/q.sql" {
		t.Errorf("control: %+v %v", a.Files, err)
	}
}
