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

// TestAttack12ClaudeCodeWebFetchUpgrade: Claude Code upgrades an http URL
// to https before WebFetch fetches it, so the call is judged, granted and
// shown as the https URL (twelfth attack review, left open by the
// reviewer: the decision judged the http origin, port 80, while Claude Code
// fetched port 443). The control: an https URL is unchanged.
func TestAttack12ClaudeCodeWebFetchUpgrade(t *testing.T) {
	for in, want := range map[string]string{
		"http://example.com/a?b": "https://example.com/a?b",
		"HTTP://example.com/":    "https://example.com/",
		"http://example.com:80/": "https://example.com:80/",
		"https://example.com/":   "https://example.com/",
		"ftp://example.com/file": "ftp://example.com/file",
	} {
		raw, _ := json.Marshal(map[string]any{"url": in, "prompt": "read it"})
		inv, err := ClaudeCodeInvocation("WebFetch", raw, "/w")
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		var args struct{ URL string }
		if err := json.Unmarshal(inv.Arguments, &args); err != nil || args.URL != want {
			t.Errorf("%s: judged as %q, want %q", in, args.URL, want)
		}
	}
}
