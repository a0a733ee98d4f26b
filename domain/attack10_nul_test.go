package domain

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestAttack10NULInDiffName: the tenth review. GNU patch reads a header's
// name as a C string: it ends at a NUL. "--- .envrc\x00x" was judged a
// write of the file ".envrc\x00x" (no file: the kernel takes no such
// name), while patch -p0 wrote the workspace's protected .envrc.
func TestAttack10NULInDiffName(t *testing.T) {
	diff := "--- README\n+++ README\n@@ -1 +1 @@\n-a\n+b\n--- .envrc\x00x\n+++ .envrc\x00x\n@@ -1 +1 @@\n-a\n+b\n"
	args, _ := json.Marshal(map[string]string{"patch": diff})
	a, err := Classify(Invocation{ToolName: "apply_patch", Arguments: args}, "/w", nil)
	if err == nil && !slices.ContainsFunc(a.Files, func(f FileOp) bool { return f.Path == "/w/.envrc" }) {
		t.Errorf("judged as a write of %q; GNU patch writes /w/.envrc", a.Files)
	}
	// control: the honest part alone names README.
	args, _ = json.Marshal(map[string]string{"patch": "--- README\n+++ README\n@@ -1 +1 @@\n-a\n+b\n"})
	a, err = Classify(Invocation{ToolName: "apply_patch", Arguments: args}, "/w", nil)
	if err != nil || len(a.Files) != 1 || a.Files[0].Path != "/w/README" {
		t.Errorf("control: %+v %v", a.Files, err)
	}
}
