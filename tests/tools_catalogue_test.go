package tests

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestUnclassifiedToolIsFlaggedAndCounted decides tools the classifier does
// not know (names a runtime might use) and one it knows: only the unknown
// ones say "unclassified": true and count in /metrics; a replay of the same
// tool call says it again without counting it twice.
func TestUnclassifiedToolIsFlaggedAndCounted(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	s.startTurn("unk", "ws", "supervised", workspace(t))
	const metric = "turnstile_unclassified_tool_decisions_total"
	decide := func(call, tool string, args any) map[string]any {
		var out map[string]any
		s.JSON("POST", "/v1/turns/unk/decisions", map[string]any{"tool_call_id": call, "tool_name": tool, "arguments": args}, 200, &out)
		return out
	}
	if got := s.scrape()[metric]; got != 0 {
		t.Fatalf("%s starts at %v", metric, got)
	}
	for i, tool := range []string{"write_file", "bash", "fetch"} {
		out := decide("u"+tool, tool, map[string]any{"path": "a.txt"})
		if out["unclassified"] != true || out["action"] != "unknown" {
			t.Fatalf("%s: %v", tool, out)
		}
		if got := s.scrape()[metric]; got != float64(i+1) {
			t.Fatalf("after %s, %s = %v, want %d", tool, metric, got, i+1)
		}
	}
	// The replay of a decided call: flagged, not counted again.
	if out := decide("uwrite_file", "write_file", map[string]any{"path": "a.txt"}); out["unclassified"] != true || out["replayed"] != true {
		t.Fatalf("replay: %v", out)
	}
	// Controls: known tools are not flagged and not counted.
	for _, c := range []struct {
		tool string
		args any
	}{{"read_file", map[string]any{"path": "a.txt"}}, {"exec_command", map[string]any{"cmd": "ls"}}} {
		out := decide("k"+c.tool, c.tool, c.args)
		if _, ok := out["unclassified"]; ok || out["action"] == "unknown" {
			t.Fatalf("%s flagged: %v", c.tool, out)
		}
	}
	if got := s.scrape()[metric]; got != 3 {
		t.Fatalf("%s = %v after the replay and the known tools, want 3", metric, got)
	}
}

// TestToolsCommandAndOpenAPI checks that `turnstile tools` prints the
// catalogue docs/tools.md holds, and that /openapi.json has an argument
// schema for each named tool and a decision example for every entry.
func TestToolsCommandAndOpenAPI(t *testing.T) {
	t.Parallel()
	out, _, code := runCLI(t, "tools")
	doc, err := os.ReadFile("../docs/tools.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(doc), "<!-- tools:begin -->\n")
	table, _, _ := strings.Cut(rest, "<!-- tools:end -->")
	if code != 0 || out != table || !strings.Contains(out, "`apply_patch`") {
		t.Fatalf("turnstile tools (exit %d) differs from docs/tools.md:\n%s", code, out)
	}
	jsonOut, _, code := runCLI(t, "tools", "--json")
	var tools []struct {
		Name    string          `json:"tool_name"`
		Pattern bool            `json:"pattern"`
		Kind    string          `json:"action"`
		Example json.RawMessage `json:"example"`
	}
	if code != 0 || json.Unmarshal([]byte(jsonOut), &tools) != nil || len(tools) < 15 {
		t.Fatalf("tools --json: %d\n%s", code, jsonOut)
	}
	s := StartServer(t, "")
	var api struct {
		Paths      map[string]map[string]map[string]any `json:"paths"`
		Components struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	s.JSON("GET", "/openapi.json", nil, 200, &api)
	body := api.Paths["/v1/turns/{turn_id}/decisions"]["post"]["requestBody"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)
	examples, _ := body["examples"].(map[string]any)
	if len(examples) != len(tools) {
		t.Fatalf("the decision operation has %d examples for %d catalogue entries", len(examples), len(tools))
	}
	for _, tool := range tools {
		if tool.Pattern {
			continue
		}
		sch := api.Components.Schemas["ToolArguments_"+tool.Name]
		if sch == nil || sch["x-action-kind"] != tool.Kind || sch["type"] != "object" {
			t.Errorf("no argument schema for %s: %v", tool.Name, sch)
		}
		ex, _ := examples[tool.Name].(map[string]any)
		if v, _ := ex["value"].(map[string]any); v == nil || v["tool_name"] != tool.Name {
			t.Errorf("no decision example for %s: %v", tool.Name, ex)
		}
	}
	props := body["schema"].(map[string]any)["properties"].(map[string]any)
	if args, _ := props["arguments"].(map[string]any); args == nil || args["anyOf"] == nil {
		t.Fatalf("decision arguments have no per-tool schemas: %v", props["arguments"])
	}
}
