package domain

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestClaudeCodeToolsInREADME keeps the README's tool table equal to the
// one the hook uses (go test ./domain -run TestClaudeCodeToolsInREADME
// -update rewrites it).
func TestClaudeCodeToolsInREADME(t *testing.T) {
	const begin, end = "<!-- claude-code-tools:begin -->\n", "<!-- claude-code-tools:end -->"
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	i, j := strings.Index(readme, begin), strings.Index(readme, end)
	if i < 0 || j < i {
		t.Fatalf("README.md has no %q … %q markers", begin, end)
	}
	want := ClaudeCodeToolsMarkdown()
	if got := readme[i+len(begin) : j]; got != want {
		if *update {
			if err := os.WriteFile("../README.md", []byte(readme[:i+len(begin)]+want+readme[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Fatalf("README.md's Claude Code tool table differs from domain.ClaudeCodeTools; run with -update\n got:\n%s\nwant:\n%s", got, want)
	}
}

// TestClaudeCodeInvocation maps each tool and checks the kind the
// classifier gives it, so that the table's Kind column is true.
func TestClaudeCodeInvocation(t *testing.T) {
	inputs := map[string]string{
		"Bash": `{"command":"ls","timeout":5000}`, "Read": `{"file_path":"/w/a"}`, "Glob": `{"pattern":"src/*.go"}`,
		"Grep": `{"pattern":"x"}`, "LS": `{"path":"/w"}`, "Write": `{"file_path":"/w/a","content":"x"}`,
		"Edit": `{"file_path":"/w/a","old_string":"a","new_string":"b"}`, "MultiEdit": `{"file_path":"/w/a","edits":[]}`,
		"NotebookEdit": `{"notebook_path":"/w/n.ipynb"}`, "WebFetch": `{"url":"https://example.com/x","prompt":"p"}`,
		"WebSearch": `{"query":"q"}`, "Task": `{"description":"d","prompt":"p","subagent_type":"s"}`,
		"mcp__<server>__<tool>": `{}`, "*": `{}`, "TodoWrite": `{"todos":[]}`, "BashOutput": `{"bash_id":"b"}`, "KillShell": `{"shell_id":"b"}`,
	}
	for _, tool := range ClaudeCodeTools {
		name := tool.Name
		if name == "mcp__<server>__<tool>" {
			name = "mcp__github__create_issue"
		} else if name == "*" {
			name = "SlashCommand"
		}
		inv, err := ClaudeCodeInvocation(name, json.RawMessage(inputs[tool.Name]), "/w")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		a, err := Classify(inv, "/w", nil)
		if err != nil {
			t.Fatalf("%s → %s %s: %v", name, inv.ToolName, inv.Arguments, err)
		}
		if a.Kind != tool.Kind {
			t.Errorf("%s → %s: kind %s, the table says %s", name, inv.ToolName, a.Kind, tool.Kind)
		}
	}
	// Paths: the glob's literal prefix, a relative path against cwd.
	for _, c := range []struct{ tool, in, path string }{
		{"Glob", `{"pattern":"/etc/*"}`, "/etc"},
		{"Glob", `{"pattern":"../../x/**/*.go","path":"/w/a/b"}`, "/w/x"},
		{"Glob", `{"pattern":"**/*.go"}`, "/w"},
		{"Glob", `{"pattern":"/*"}`, "/"},
		{"Glob", `{"pattern":"docs/README.md"}`, "/w/docs"},
		{"Read", `{"file_path":"rel/a.txt"}`, "/w/rel/a.txt"},
		{"Grep", `{"pattern":"x"}`, "/w"},
	} {
		inv, err := ClaudeCodeInvocation(c.tool, json.RawMessage(c.in), "/w")
		if err != nil {
			t.Fatal(err)
		}
		a, _ := Classify(inv, "/w", nil)
		if len(a.Files) != 1 || a.Files[0].Path != c.path {
			t.Errorf("%s %s reads %+v, want %s", c.tool, c.in, a.Files, c.path)
		}
	}
	// Write and Edit of one file share a scope (the file, not the content).
	w, _ := ClaudeCodeInvocation("Write", json.RawMessage(`{"file_path":"/w/a","content":"x"}`), "/w")
	e, _ := ClaudeCodeInvocation("Edit", json.RawMessage(`{"file_path":"/w/a","old_string":"y","new_string":"z"}`), "/w")
	aw, _ := Classify(w, "/w", nil)
	ae, _ := Classify(e, "/w", nil)
	if aw.ScopeHash != ae.ScopeHash {
		t.Errorf("Write and Edit of /w/a have different scopes")
	}
	if _, err := ClaudeCodeInvocation("Write", json.RawMessage(`{"file_path":"/w/a\n*** Update File: /etc/passwd"}`), "/w"); err == nil {
		t.Error("a newline in a path was accepted")
	}
}

func TestClaudeCodeConfig(t *testing.T) {
	c := ClaudeCodeConfig{Projects: []ClaudeCodeProject{
		{Root: "/", WorkspaceID: "any", Mode: ModeSupervised},
		{Root: "/src/app/", WorkspaceID: "app", Mode: ModeAutoAcceptEdits, PermissionModes: map[string]Mode{"plan": ModeSupervised}},
	}}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	for cwd, ws := range map[string]string{"/src/app": "app", "/src/app/x": "app", "/src/apple": "any", "/tmp": "any"} {
		if p, ok := c.Project(cwd); !ok || p.WorkspaceID != ws {
			t.Errorf("Project(%s) = %+v %v, want %s", cwd, p, ok, ws)
		}
	}
	p, _ := c.Project("/src/app")
	if p.Request("plan").Mode != ModeSupervised || p.Request("bypassPermissions").Mode != ModeAutoAcceptEdits {
		t.Error("permission_mode mapped where the operator did not say so")
	}
	named := ClaudeCodeProject{Root: "/p", WorkspaceID: "p", Profile: "team-default", PermissionModes: map[string]Mode{"plan": ModeSupervised}}
	if r := named.Request("default"); r.Profile != "team-default" || r.Mode != "" {
		t.Errorf("a project's profile: %+v", r)
	}
	if r := named.Request("plan"); r.Mode != ModeSupervised || r.Profile != "" {
		t.Errorf("a mapped permission_mode under a profile: %+v", r)
	}
	for _, p := range []ClaudeCodeProject{
		{Root: "/p", WorkspaceID: "p", Mode: ModeSupervised, Profile: "x"}, // both
		{Root: "/p", WorkspaceID: "p"},                                     // neither
	} {
		if (&ClaudeCodeConfig{Projects: []ClaudeCodeProject{p}}).Validate() == nil {
			t.Errorf("accepted %+v", p)
		}
	}
	bad := ClaudeCodeConfig{Projects: []ClaudeCodeProject{{Root: "/a", WorkspaceID: "a", Mode: ModeSupervised, PermissionModes: map[string]Mode{"yolo": ModeFullAccess}}}}
	if bad.Validate() == nil {
		t.Error("an unknown permission_mode was accepted")
	}
	// Claude Code's auto mode (a classifier answers its prompts) may be
	// mapped, to a narrower mode for instance.
	auto := ClaudeCodeConfig{Projects: []ClaudeCodeProject{{Root: "/a", WorkspaceID: "a", Mode: ModeAutoAcceptEdits, PermissionModes: map[string]Mode{"auto": ModeSupervised}}}}
	if err := auto.Validate(); err != nil {
		t.Errorf("permission_mode auto was refused: %v", err)
	}
	if (&ClaudeCodeConfig{Projects: []ClaudeCodeProject{{Root: "rel", WorkspaceID: "a", Mode: ModeSupervised}}}).Validate() == nil {
		t.Error("a relative root was accepted")
	}
}

// TestPromptsOnlyInKnownInteractiveModes: an ask is Claude Code's prompt
// only in the modes known to put it before the person; any other mode,
// known to skip it or unknown (a newer Claude Code's), is held.
func TestPromptsOnlyInKnownInteractiveModes(t *testing.T) {
	c := ClaudeCodeConfig{}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, pm := range []string{"default", "acceptEdits", "plan", ""} {
		if !c.PromptsFor(pm) {
			t.Errorf("control: %q is not prompted", pm)
		}
	}
	for _, pm := range []string{"auto", "bypassPermissions", "dontAsk", "delegate", "Default", "someFutureMode"} {
		if c.PromptsFor(pm) {
			t.Errorf("%q is prompted: an ask in it may never reach a person", pm)
		}
	}
	c.Ask = ClaudeCodeAskHold
	if c.PromptsFor("default") {
		t.Error(`ask = "hold" prompts`)
	}
}
