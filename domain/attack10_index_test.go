package domain

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestAttack10IndexWithoutASpace: the tenth review. The ninth judged the
// name of an "Index: " line, but GNU patch reads "Index:" with or without
// white space after it: after an honest hunk of README, "Index:.mcp.json"
// and a normal diff made patch -p0 write the workspace's protected
// .mcp.json (its MCP servers start programs) while the call was judged a
// write of README alone.
func TestAttack10IndexWithoutASpace(t *testing.T) {
	honest := "--- README\n+++ README\n@@ -1 +1 @@\n-a\n+b\n"
	for _, idx := range []string{"Index:.mcp.json\n", "Index:\t.mcp.json\n"} {
		args, _ := json.Marshal(map[string]string{"patch": honest + idx + "1c1\n< a\n---\n> b\n"})
		a, err := Classify(Invocation{ToolName: "apply_patch", Arguments: args}, "/w", nil)
		if err == nil && !slices.ContainsFunc(a.Files, func(f FileOp) bool { return f.Path == "/w/.mcp.json" }) {
			t.Errorf("%q: judged as a write of %+v; GNU patch writes /w/.mcp.json", idx, a.Files)
		}
	}
	// control: "Index: x" names x, as before.
	args, _ := json.Marshal(map[string]string{"patch": "Index: x.c\n1c1\n< a\n---\n> b\n"})
	a, err := Classify(Invocation{ToolName: "apply_patch", Arguments: args}, "/w", nil)
	if err != nil || len(a.Files) != 1 || a.Files[0].Path != "/w/x.c" {
		t.Errorf("control: %+v %v", a.Files, err)
	}
}
