package domain

import (
	"encoding/json"
	"testing"
)

// TestExecPatchCdArgumentHoldsNoRedirect: a cd argument that holds a "<"
// or a line's end (where the reading could take a "<<" inside it for the
// here-document, on its line or the next) is refused; Codex would write
// the patch where that argument leads. Controls: a plain directory, one
// named like the program, and the program named as the cd's directory
// are read as before.
func TestExecPatchCdArgumentHoldsNoRedirect(t *testing.T) {
	body := "<<'EOF'\n*** Begin Patch\n*** Add File: authorized_keys\n+k\n*** End Patch\nEOF\n"
	classify := func(cmd string) (Action, error) {
		raw, _ := json.Marshal(map[string]any{"cmd": cmd})
		return Classify(Invocation{ToolName: "exec_command", Arguments: raw}, "/work/repo", nil)
	}
	for _, cmd := range []string{
		"cd 'apply_patch <<x\n/../../../home/user/.ssh' && apply_patch " + body,
		"cd 'a<b' && apply_patch " + body,
		"cd 'apply_patch <<x' && apply_patch " + body,
	} {
		if a, err := classify(cmd); err == nil {
			t.Errorf("%q: read as a write of %+v", cmd[:24], a.Files)
		}
	}
	for cmd, want := range map[string]string{
		"cd sub && apply_patch " + body:            "/work/repo/sub/authorized_keys",
		"cd sub/applypatch && apply_patch " + body: "/work/repo/sub/applypatch/authorized_keys",
	} {
		a, err := classify(cmd)
		found := false
		for _, f := range a.Files {
			found = found || f.Path == want
		}
		if err != nil || !found {
			t.Errorf("control %q: %+v %v", cmd[:24], a.Files, err)
		}
	}
}
