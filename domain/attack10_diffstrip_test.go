package domain

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestAttack10DiffStripLevels: the tenth review. A diff's file name was
// judged as written and, with git's a/ or b/ prefix, without it (patch -p0
// and -p1), but the tools that apply a diff strip other prefixes: git apply
// strips the first element of any name (-p1 is its default, a/ or not), and
// GNU patch given no -p writes the name's last element in its working
// directory. "--- docs/.envrc" was judged a write of /w/docs/.envrc, allowed
// without a question in auto_accept_edits, while `patch < diff` and
// `git apply` wrote /w/.envrc, the workspace's protected direnv file
// (direnv runs it in the person's next shell there).
func TestAttack10DiffStripLevels(t *testing.T) {
	for _, c := range []struct {
		diff, want string
	}{
		{"--- docs/.envrc\n+++ docs/.envrc\n@@ -1 +1 @@\n-export A=1\n+export A=2\n", "/w/.envrc"},
		{"--- x/y/.git/config\n+++ x/y/.git/config\n@@ -1 +1,2 @@\n [core]\n+\tfsmonitor = x\n", "/w/.git/config"},
		{"diff --git a/sub/.envrc b/sub/.envrc\n--- a/sub/.envrc\n+++ b/sub/.envrc\n@@ -1 +1 @@\n-a\n+b\n", "/w/.envrc"},
		{"Index: sub/.mcp.json\n0a1\n> {}\n", "/w/.mcp.json"},
	} {
		args, _ := json.Marshal(map[string]string{"patch": c.diff})
		a, err := Classify(Invocation{ToolName: "apply_patch", Arguments: args}, "/w", nil)
		if err == nil && !slices.ContainsFunc(a.Files, func(f FileOp) bool { return f.Path == c.want }) {
			t.Errorf("%q: judged as a write of %+v; git apply, patch -p2 or patch without -p writes %s", c.diff, a.Files, c.want)
		}
	}
	long := "--- " + strings.Repeat("a/", 2048) + "x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"
	args, _ := json.Marshal(map[string]string{"patch": long})
	if _, err := Classify(Invocation{ToolName: "apply_patch", Arguments: args}, "/w", nil); err == nil {
		t.Error("a diff name longer than PATH_MAX was judged, not refused")
	}
	// control: a diff of a file at the top names it with and without git's
	// prefixes, nothing else; a Codex patch's names are not stripped.
	args, _ = json.Marshal(map[string]string{"patch": "--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-a\n+b\n"})
	a, err := Classify(Invocation{ToolName: "apply_patch", Arguments: args}, "/w", nil)
	if err != nil || len(a.Files) != 3 {
		t.Errorf("control: %+v %v", a.Files, err)
	}
	args, _ = json.Marshal(map[string]string{"patch": "*** Begin Patch\n*** Update File: docs/x.md\n@@\n-a\n+b\n*** End Patch"})
	a, err = Classify(Invocation{ToolName: "apply_patch", Arguments: args}, "/w", nil)
	if err != nil || len(a.Files) != 1 || a.Files[0].Path != "/w/docs/x.md" {
		t.Errorf("control: %+v %v", a.Files, err)
	}
}
