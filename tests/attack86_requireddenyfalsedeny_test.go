package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack86_RequiredDenyRefusesFullAccessBash (eighty-sixth review,
// false deny): domain/reach.go RestrictsReach says "the system's rules
// (the operator's constraints, the protected list) are not counted: they
// bind full_access turns too, whose commands a CLI runtime runs unheld as
// well", and skips a deny entry of kind sensitive (an operator's locked
// deny is made one) and a rule from the system. But an operator's
// required_deny (serve --constraints, required_deny = ["~/.ssh"]) also
// makes every full_access turn's :danger-full-access compile as not
// Unrestricted (profile_compile.go: Unrestricted needs no required deny),
// so its sandbox mode is workspace_write, and RestrictsReach's first test
// (Sandbox.Mode != unrestricted) counts it after all. Under such an
// operator every Claude Code Bash call of a full_access (bypassPermissions)
// session is refused command_unconfined, and since the eighty-fourth
// review's fix every MCP tool call that is not a trusted read too
// (tool_unconfined), though the operator's constraint is exactly what the
// comment says is not to count.
//
// Root cause: domain/reach.go RestrictsReach tests the sandbox mode before
// the entries, and a required deny changes the mode of a full_access
// snapshot (domain/profile_compile.go CompileProfile, profileSandbox).
//
// Fix: judge reach on the profile's own restriction: a snapshot whose only
// restrictions are system rules and sensitive entries (a :root write with
// locked denies) restricts nothing here; or keep Unrestricted (and its
// sandbox mode) when the only rules beside :root = write are the
// operator's locked denies.
//
// Control: without the constraints file the same session's Bash and MCP
// call are allowed.
func TestAttack86_RequiredDenyRefusesFullAccessBash(t *testing.T) {
	t.Parallel()
	cons := filepath.Join(t.TempDir(), "constraints.toml")
	if err := os.WriteFile(cons, []byte("required_deny = [\"~/.ssh\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		flags []string
	}{{"control", nil}, {"required_deny", []string{"--constraints", cons}}} {
		ws := workspace(t)
		s := ccServer(t, ws, "full_access", nil, c.flags...)
		session := "sess-a86-rd-" + c.name
		hook := func(name, id string, fields map[string]any) string {
			f := map[string]any{"tool_use_id": id}
			for k, v := range fields {
				f[k] = v
			}
			return strings.TrimSpace(s.hookHTTP(ccEdit(t, ccPayload(t, name, session, ws), f)))
		}
		bash := hook("pre_bash", "toolu_a86_rd_b", map[string]any{"tool_input": map[string]any{"command": "go test ./...", "description": "test"}})
		mcp := hook("pre_mcp", "toolu_a86_rd_m", map[string]any{"tool_name": "mcp__github__create_issue", "tool_input": map[string]any{"title": "x"}})
		if c.flags == nil {
			if !strings.Contains(bash, `"permissionDecision":"allow"`) || !strings.Contains(mcp, `"permissionDecision":"allow"`) {
				t.Fatalf("control: under full_access without constraints: bash %s\nmcp %s", bash, mcp)
			}
			continue
		}
		if !strings.Contains(bash, `"permissionDecision":"allow"`) {
			t.Errorf("an honest Bash call of a full_access session is refused when the operator's constraints hold a required_deny (which RestrictsReach says it does not count): %s", bash)
		}
		if !strings.Contains(mcp, `"permissionDecision":"allow"`) {
			t.Errorf("an MCP call of a full_access session is refused when the operator's constraints hold a required_deny: %s", mcp)
		}
	}
}

// TestAttack86_RequiredDenyRefusesFullAccessMCP: the same on the REST API
// for a native turn (Codex's MCP tools, which it runs itself): under the
// operator's required_deny a full_access turn's MCP call is refused
// tool_unconfined, new with the eighty-fourth review's fix, where no
// command is unconfined at all. Control: without the constraints it is
// allowed.
func TestAttack86_RequiredDenyRefusesFullAccessMCP(t *testing.T) {
	t.Parallel()
	cons := filepath.Join(t.TempDir(), "constraints.toml")
	if err := os.WriteFile(cons, []byte("required_deny = [\"~/.ssh\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, flags := range [][]string{nil, {"--constraints", cons}} {
		s := StartServer(t, "", flags...)
		ws := workspace(t)
		s.startTurn("a86-rd", "ws", "full_access", ws)
		d := s.decide("a86-rd", "c-mcp", "mcp__github__create_issue", map[string]any{"title": "x"})
		if flags == nil {
			if d.Decision != "allow" {
				t.Fatalf("control: an MCP call of a full_access turn without constraints: %+v", d)
			}
			continue
		}
		if d.Decision != "allow" {
			t.Errorf("an MCP call of a native full_access turn is refused when the operator's constraints hold a required_deny: %+v", d)
		}
	}
}
