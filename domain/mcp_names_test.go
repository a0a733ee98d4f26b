package domain

import "testing"

// TestMCPNameReadEveryWay (thirteenth review, left open): Claude Code names
// an MCP tool mcp__<server>__<tool>, and either name may hold "__" or end
// or start with "_". The classifier read the server up to the first "__",
// so a trust of docs/* (or docs/lookup__all) made mcp__docs__lookup__all,
// which is also server docs__lookup's tool all, a trusted read, allowed
// without a question in supervised mode. Such a name is trusted only when
// every reading is. Controls: a plain name is trusted as before, a name
// whose every reading is trusted is, and hints name the server exactly.
func TestMCPNameReadEveryWay(t *testing.T) {
	kind := func(trust MCPTrust, name string, hints *MCPHints) ActionKind {
		t.Helper()
		a, err := Classify(Invocation{ToolName: name, Arguments: []byte(`{}`), MCP: hints}, "/w", trust)
		if err != nil {
			t.Fatal(err)
		}
		return a.Kind
	}
	for _, c := range []struct {
		trust MCPTrust
		name  string
		want  ActionKind
	}{
		{MCPTrust{"docs/*"}, "mcp__docs__search", ActionMCPRead},
		{MCPTrust{"docs/*"}, "mcp__docs__lookup__all", ActionMCPWriteOrUnknown},
		{MCPTrust{"docs/lookup__all"}, "mcp__docs__lookup__all", ActionMCPWriteOrUnknown},
		{MCPTrust{"docs/*"}, "mcp__docs___x", ActionMCPWriteOrUnknown},
		{MCPTrust{"docs/*", "docs__lookup/*"}, "mcp__docs__lookup__all", ActionMCPRead},
		{MCPTrust{"docs/lookup__all", "docs__lookup/all"}, "mcp__docs__lookup__all", ActionMCPRead},
		{MCPTrust{"docs/*"}, "mcp__other__search", ActionMCPWriteOrUnknown},
	} {
		if got := kind(c.trust, c.name, nil); got != c.want {
			t.Errorf("%v %s: %s, want %s", c.trust, c.name, got, c.want)
		}
	}
	if got := kind(MCPTrust{"docs/*"}, "mcp__docs__lookup__all", &MCPHints{Server: "docs", Tool: "lookup__all"}); got != ActionMCPRead {
		t.Errorf("with hints naming the server: %s", got)
	}
}
