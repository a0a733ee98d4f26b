package api

import (
	"encoding/json"
	"strings"

	"turnstile/domain"
)

// addToolSchemas puts each catalogued tool's argument schema in
// components.schemas (ToolArguments_<tool>), describes the decision
// request's arguments with them, and gives the decision operation one
// example per tool (docs/tools.md is the same catalogue).
func addToolSchemas(paths map[string]map[string]any, schemas map[string]any) {
	var refs []any
	examples := map[string]any{}
	for _, t := range domain.ToolCatalogue {
		var example any
		_ = json.Unmarshal([]byte(t.Example), &example)
		key := t.Name
		if t.Pattern {
			key = strings.NewReplacer("<", "", ">", "", " ", "_").Replace(t.Name)
		}
		examples[key] = map[string]any{"summary": t.Name + " (" + string(t.Kind) + "): " + t.Doc,
			"value": map[string]any{"tool_call_id": "call-1", "tool_name": exampleToolName(t), "arguments": example}}
		if t.Pattern {
			continue
		}
		name := "ToolArguments_" + t.Name
		s := domain.ToolArgumentsSchema(t)
		s["examples"] = []any{example}
		schemas[name] = s
		refs = append(refs, map[string]any{"$ref": "#/components/schemas/" + name})
	}
	op, ok := paths["/v1/turns/{turn_id}/decisions"]["post"].(map[string]any)
	if !ok {
		return
	}
	body := op["requestBody"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)
	body["examples"] = examples
	if props, ok := body["schema"].(map[string]any)["properties"].(map[string]any); ok {
		props["arguments"] = map[string]any{
			"description": "The tool's arguments: for a tool of the catalogue (docs/tools.md, `turnstile tools`), the matching ToolArguments_<tool> schema; any other tool's arguments are hashed, and its decision says \"unclassified\": true.",
			"anyOf":       append(refs, map[string]any{"type": "object"}),
		}
	}
}

// exampleToolName is a concrete tool name for a catalogue entry.
func exampleToolName(t domain.ToolInfo) string {
	switch t.Name {
	case "task_<name>":
		return "task_review"
	case "mcp__<server>__<tool>":
		return "mcp__github__create_issue"
	case "skill__<name>":
		return "skill__pdf"
	case "anything else":
		return "write_file"
	}
	return t.Name
}
