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

// publicDescriptions describe the operations that need no credential.
var publicDescriptions = map[string]string{
	"GET /healthz":            "Answers 200 while the process serves HTTP; needs no credential. Readiness (store reachable, read models caught up) is /readyz.",
	"GET /v1/server/identity": "Needs no credential. A client on the server's machine asks it before it sends a credential on a connection: the answer is signed with the server's Ed25519 key (ed25519:KEY, the key serve prints at start and writes to DATA/server-key.pub), over the nonce and the addresses the server listens on (host:port); the client checks the key is the one it pinned and that the address its connection reached is among them (the same port, and the address or an unspecified one of its family), so a program that took the server's port, or relays the answer of the server listening elsewhere, is refused. The signed message is: the bytes \"turnstile server identity v2\" and a zero byte; the nonce's length (4 bytes, big-endian) and the nonce; the number of addresses (4 bytes, big-endian); and for each address its length (4 bytes, big-endian) and its bytes. A missing or malformed nonce is 400 invalid_field.",
}

// bodyExamples is an example request body of each operation that takes
// one (the decision operation has one per tool, from the catalogue); a
// test decodes each into the operation's body type, unknown fields
// refused, so none names a field the server would refuse.
var bodyExamples = map[string]string{
	"POST /v1/hooks/claude-code":              `{"session_id": "s1", "cwd": "/home/me/src/app", "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "go test ./..."}}`,
	"POST /v1/turns":                          `{"turn_id": "t1", "workspace_id": "ws1", "thread_id": "th1", "permission_profile": {"mode": "supervised"}, "workspace_root": "/home/me/src/app"}`,
	"POST /v1/turns/{turn_id}/exec":           `{"tool_call_id": "call-1", "argv": ["go", "test", "./..."], "cwd": ".", "env": {"GOFLAGS": "-count=1"}, "timeout_ms": 600000}`,
	"POST /v1/turns/{turn_id}/permissions":    `{"permission_profile": {"mode": "auto_accept_edits"}}`,
	"POST /v1/turns/{turn_id}/complete":       `{"reason": "done"}`,
	"POST /v1/turns/{turn_id}/interrupt":      `{"reason": "the user pressed stop"}`,
	"POST /v1/turns/{turn_id}/fail":           `{"reason": "the model call failed"}`,
	"POST /v1/credentials":                    `{"name": "alice", "role": "approver", "workspaces": ["ws1"]}`,
	"POST /v1/approvals/{request_id}/respond": `{"resolution": "allow_for_turn"}`,
}

// addOperationDocs gives public operations their description and each
// operation with a body its example.
func addOperationDocs(paths map[string]map[string]any) {
	for _, op := range operations {
		o, ok := paths[op.path][strings.ToLower(op.method)].(map[string]any)
		if !ok {
			continue
		}
		key := op.method + " " + op.path
		if d, ok := publicDescriptions[key]; ok && o["description"] == nil {
			o["description"] = d
		}
		ex, ok := bodyExamples[key]
		if !ok {
			continue
		}
		var v any
		if json.Unmarshal([]byte(ex), &v) != nil {
			continue
		}
		if rb, ok := o["requestBody"].(map[string]any); ok {
			content := rb["content"].(map[string]any)["application/json"].(map[string]any)
			content["example"] = v
			if props, ok := content["schema"].(map[string]any)["properties"].(map[string]any); ok && props["cmd"] != nil && props["argv"] != nil {
				props["cmd"] = map[string]any{"description": "the command under the decision endpoint's name: an argv array (as argv), or a shell string run as /bin/sh -c CMD; give argv or cmd, not both",
					"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "array", "items": map[string]any{"type": "string"}}}}
			}
		}
	}
}
