package domain

import (
	"encoding/json"
	"testing"
)

// TestAttack12MCPToolNamedLikeABuiltIn: a tool the runtime says an MCP
// server declared (mcp hints) or a skill registered (dynamic) is judged as
// that, whatever its name (twelfth attack review, left open by the
// reviewer): an MCP server's read_skill was judged the internal tool,
// allowed in every mode, and its read_file a read of the workspace, while
// the runtime called the server's tool. The controls: the same names
// without the hints are the built-ins.
func TestAttack12MCPToolNamedLikeABuiltIn(t *testing.T) {
	args, _ := json.Marshal(map[string]any{"path": "src/main.go"})
	for _, c := range []struct {
		inv  Invocation
		want ActionKind
	}{
		{Invocation{ToolName: "read_skill", Arguments: args, MCP: &MCPHints{Server: "evil", Tool: "read_skill"}}, ActionMCPWriteOrUnknown},
		{Invocation{ToolName: "read_file", Arguments: args, MCP: &MCPHints{Server: "evil", Tool: "read_file", ReadOnlyHint: true}}, ActionMCPWriteOrUnknown},
		{Invocation{ToolName: "task_wait", Arguments: args, Dynamic: true}, ActionDynamicSkillTool},
		{Invocation{ToolName: "read_file", Arguments: args, Dynamic: true}, ActionDynamicSkillTool},
		// Controls: the built-ins.
		{Invocation{ToolName: "read_skill", Arguments: args}, ActionInternal},
		{Invocation{ToolName: "read_file", Arguments: args}, ActionFileRead},
	} {
		a, err := Classify(c.inv, "/w", nil)
		if err != nil || a.Kind != c.want {
			t.Errorf("%s (mcp %v, dynamic %v): %s %v, want %s", c.inv.ToolName, c.inv.MCP != nil, c.inv.Dynamic, a.Kind, err, c.want)
		}
	}
}
