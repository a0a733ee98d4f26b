package domain

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAttack44MCPShellCommand: an MCP server's shell tool (a "shell"
// server's execute_command, desktop-commander's start_process …) runs
// its "command" argument with a shell; its request shows the arguments
// as JSON, redacted as a text of no known kind: a line after a key's
// marker is hidden as key material wherever it is, and a secret
// assignment's shape is hidden though it is the program the shell runs
// (programWord applies to exec_command's text alone). So
//
//	mcp__shell__execute_command {"command": "# -----BEGIN PRIVATE KEY-----\n" +
//	    "tools/r4nD0mLooK1nGNam3ForAScr1ptTheAgentWr0te1nTheW0rkspace\n"}
//	mcp__shell__execute_command {"command": "my-secret=bin/deployAll"}
//
// are shown with the program "[redacted]", where the person approving
// reads the command the server runs (the same texts run by sh are the
// forty-second and this review's exec_command findings: the shells run
// the program).
//
// Control: a key in a quoted here-document in such a command stays
// hidden. The secure behaviour asserted: the request shows the program.
func TestAttack44MCPShellCommand(t *testing.T) {
	shown := func(args map[string]any) string {
		raw, _ := json.Marshal(args)
		a, err := Classify(Invocation{ToolName: "mcp__shell__execute_command", Arguments: raw}, "/w", nil)
		if err != nil {
			t.Fatal(err)
		}
		r := a.Redacted()
		var b strings.Builder
		b.WriteString(r.Summary)
		for _, d := range r.Details {
			b.WriteString("\n" + d.Label + ": " + d.Value)
		}
		return b.String()
	}
	key := "cat > k.pem <<'EOF'\n-----BEGIN PRIVATE KEY-----\n" + attack42L1 + "\n" + attack42L2 + "\n-----END PRIVATE KEY-----\nEOF\n"
	if s := shown(map[string]any{"command": key}); strings.Contains(s, attack42L1) || strings.Contains(s, attack42L2) {
		t.Fatalf("control: a key's line is shown:\n%s", s)
	}
	marker := "# -----BEGIN PRIVATE KEY-----\n" + attack42Prog + "\n"
	if ran, ok := attack42RunsProg(t, "dash", marker); ok && !ran {
		t.Fatalf("premise: sh does not run the program of %q", marker)
	}
	for _, c := range []struct{ cmd, want string }{
		{marker, attack42Prog},
		{"my-secret=bin/deployAll", "bin/deployAll"},
	} {
		if s := shown(map[string]any{"command": c.cmd}); !strings.Contains(s, c.want) {
			t.Errorf("%q: the server's shell runs %s, and the approval request hides it:\n%s", c.cmd, c.want, s)
		}
	}
}
