package turn

import (
	"encoding/json"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestActionRecordAlsoTool: the record keeps the action's second tool name
// (an exec patch is also apply_patch) and Judged gives it back, so a
// profile change judges an open request by both names (the seventy-fourth
// review); a record stored before the field existed decodes with none, and
// a record without one is written as before.
func TestActionRecordAlsoTool(t *testing.T) {
	a := domain.Action{ToolName: "exec_command", AlsoTool: "apply_patch", Kind: domain.ActionShellCommand, ScopeHash: "h"}
	r := record(&a)
	if got := r.Judged(); got.AlsoTool != "apply_patch" || got.ToolName != "exec_command" {
		t.Fatalf("Judged: %+v", got)
	}
	raw, err := json.Marshal(r)
	if err != nil || !strings.Contains(string(raw), `"also_tool":"apply_patch"`) {
		t.Fatalf("encoded %s (%v)", raw, err)
	}
	var old ActionRecord
	if err := json.Unmarshal([]byte(`{"tool_name":"exec_command","action":"shell_command","scope_hash":"h","scope":{},"summary":""}`), &old); err != nil {
		t.Fatal(err)
	}
	if old.AlsoTool != "" || old.Judged().AlsoTool != "" {
		t.Fatalf("an old record: %+v", old)
	}
	a.AlsoTool = ""
	if raw, _ := json.Marshal(record(&a)); strings.Contains(string(raw), "also_tool") {
		t.Fatalf("a record without a second tool: %s", raw)
	}
}
