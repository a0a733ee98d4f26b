package api

import (
	"reflect"
	"regexp"
	"slices"
	"strings"

	"turnstile/domain"
)

// The parts of the OpenAPI document that the Go types alone do not say:
// parameter types and ranges, the responses each endpoint really gives,
// and the content of the endpoints that are not JSON resources.

var (
	scopeType = reflect.TypeFor[domain.Scope]()
	actorType = reflect.TypeFor[domain.Actor]()
	nonWord   = regexp.MustCompile(`[^A-Za-z0-9]+`)
)

// operationID is a generator-friendly id: get_v1_turns_turn_id.
func operationID(method, path string) string {
	return strings.ToLower(method) + "_" + strings.Trim(nonWord.ReplaceAllString(path, "_"), "_")
}

// querySchemas are the query parameters as the handlers enforce them.
var querySchemas = map[string]map[string]any{
	"limit":          {"type": "integer", "minimum": 0},
	"offset":         {"type": "integer", "minimum": 0, "maximum": 1 << 30},
	"from":           {"type": "integer", "minimum": 0, "maximum": 1<<31 - 1},
	"wait":           {"type": "string", "pattern": `^([0-9]+|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$`, "description": "a duration such as 30s (or whole seconds), at most " + MaxWait.String()},
	"turn_id":        {"type": "string", "pattern": idPattern.String()},
	"last_event_id":  {"type": "string", "pattern": `^[0-9]+$`, "description": "a store position (an event id of this stream)"},
	"after":          afterSchema,
	"after_position": afterSchema,
	"nonce":          {"type": "string", "pattern": `^[0-9a-f]{64}$`, "description": "32 random bytes in lowercase hex, fresh for each connection (required)"},
}

// afterSchema is read-your-writes on the reads served from the read models.
var afterSchema = map[string]any{"type": "string", "pattern": `^[0-9]+(-[0-9]+)?$`,
	"description": "a store position, as a command's response returns it (position): the read waits (at most " + MaxAfterWait.String() +
		", else 504 read_model_lagging) until the read models include it; without it the read answers at once from what they hold"}

// pathQuerySchemas override querySchemas for one path.
var pathQuerySchemas = map[string]map[string]map[string]any{
	"/v1/events":    {"from": {"type": "string", "enum": []string{"start", "now"}, "description": "start: replay from the first event; now (the default): only what happens from now on"}},
	"/v1/approvals": {"status": {"type": "string", "enum": []string{"pending", "resolved", "all"}}},
	"/v1/turns": {"status": {"type": "string", "enum": []string{"in_progress", "awaiting_approval", "completed", "interrupted", "failed"}},
		"after": {"type": "string", "pattern": idPattern.String(), "description": "paging: the turns after this turn id (read-your-writes here is after_position)"},
		"limit": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 100}},
	"/v1/turns/{turn_id}/events": {"limit": {"type": "integer", "minimum": 0, "maximum": 10000, "default": 1000}},
	"/v1/turns/{turn_id}/audit":  {"limit": {"type": "integer", "minimum": 0, "maximum": 10000, "default": 1000}},
}

func querySchema(path, name string) map[string]any {
	if s, ok := pathQuerySchemas[path][name]; ok {
		return s
	}
	if s, ok := querySchemas[name]; ok {
		return s
	}
	return map[string]any{"type": "string"}
}

func pathParamSchema(name string) map[string]any {
	if name == "turn_id" || name == "request_id" {
		return map[string]any{"type": "string", "pattern": idPattern.String()}
	}
	return map[string]any{"type": "string"}
}

func jsonContent(schema any) map[string]any {
	return map[string]any{"application/json": map[string]any{"schema": schema}}
}

// specialResponses are the success answers of endpoints whose body is not
// a Go type (or not JSON).
var specialResponses = map[string]map[string]any{
	"GET /healthz": {"200": map[string]any{"description": "alive", "content": jsonContent(map[string]any{"type": "object", "required": []string{"status"},
		"properties": map[string]any{"status": map[string]any{"type": "string", "const": "ok"}, "version": map[string]any{"type": "string"}}})}},
	"GET /readyz": {"200": map[string]any{"description": "ready", "content": jsonContent(map[string]any{"type": "object", "required": []string{"status", "position"},
		"properties": map[string]any{"status": map[string]any{"type": "string", "const": "ready"}, "position": map[string]any{"type": "string"}}})}},
	"GET /metrics": {"200": map[string]any{"description": "Prometheus text exposition format",
		"content": map[string]any{"text/plain": map[string]any{"schema": map[string]any{"type": "string"}}}}},
	"GET /openapi.json": {"200": map[string]any{"description": "this document", "content": jsonContent(map[string]any{"type": "object"})}},
	"GET /v1/events": {"200": map[string]any{"description": "a stream of events: `id:` is the store position, `event:` the notification method, `data:` a JSON-RPC notification",
		"content": map[string]any{"text/event-stream": map[string]any{"schema": map[string]any{"type": "string"}}}}},
	"GET /rpc": {"101": map[string]any{"description": "switching to a WebSocket carrying JSON-RPC 2.0 messages"}},
	"POST /rpc": {"204": map[string]any{"description": "only notifications were sent: nothing to answer"}, "200": map[string]any{"description": "a JSON-RPC 2.0 response (errors are JSON-RPC errors, with data.status the HTTP status a REST call would give)",
		"content": jsonContent(map[string]any{"anyOf": []any{rpcResponseSchema, map[string]any{"type": "array", "items": rpcResponseSchema}}})}},
}

// rpcResponseSchema is one JSON-RPC 2.0 response.
var rpcResponseSchema = map[string]any{"type": "object", "required": []string{"jsonrpc"}, "properties": map[string]any{
	"jsonrpc": map[string]any{"const": "2.0"}, "id": map[string]any{}, "result": map[string]any{},
	"error": map[string]any{"type": "object", "required": []string{"code", "message"}, "properties": map[string]any{
		"code": map[string]any{"type": "integer"}, "message": map[string]any{"type": "string"}, "data": map[string]any{}}}}}

// rpcRequestSchema is one JSON-RPC 2.0 request or notification.
var rpcRequestSchema = map[string]any{"type": "object", "required": []string{"jsonrpc", "method"},
	"properties": map[string]any{"jsonrpc": map[string]any{"const": "2.0"}, "method": map[string]any{"type": "string"},
		"params": map[string]any{"type": []string{"object", "array", "null"}}, "id": map[string]any{"type": []string{"string", "integer", "null"}}}}

// rpcRequestBody is the body of POST /rpc: one request or a batch. A body
// that breaks these rules is still answered 200, with a JSON-RPC error.
var rpcRequestBody = map[string]any{"required": true, "content": jsonContent(map[string]any{"anyOf": []any{rpcRequestSchema, map[string]any{"type": "array", "items": rpcRequestSchema}}})}

// extraSuccess are the other success answers of an endpoint.
func extraSuccess(op operation, ok map[string]any) map[string]any {
	switch op.method + " " + op.path {
	case "POST /v1/turns":
		return map[string]any{"200": map[string]any{"description": "the same request repeated: the turn as it is", "content": ok["content"]}}
	case "GET /v1/audit/verify":
		// Newline-delimited JSON: one VerifyLine per line.
		schema := ok["content"].(map[string]any)["application/json"].(map[string]any)["schema"]
		return map[string]any{"200": map[string]any{"description": "newline-delimited JSON: one VerifyLine object per line (progress…, then head… and done; or tampered; or error)",
			"content": map[string]any{"application/x-ndjson": map[string]any{"schema": schema}}}}
	case "POST /v1/turns/{turn_id}/exec":
		schema := ok["content"].(map[string]any)["application/json"].(map[string]any)["schema"]
		return map[string]any{"202": map[string]any{"description": "the command waits for a person (decision ask, with the request); repeat the call, with ?wait=, to run it once approved", "content": ok["content"]},
			"409": map[string]any{"description": "the tool call id had already started (the answer says what happened, replayed), or an error", "content": jsonContent(map[string]any{
				"anyOf": []any{schema, map[string]any{"$ref": "#/components/schemas/Error"}}})}}
	}
	return nil
}

// errorStatuses are the 4xx and 5xx answers an endpoint can give, each in
// the one error shape.
func errorStatuses(op operation) []string {
	if op.public {
		if len(op.query) > 0 {
			return []string{"400"}
		}
		return nil
	}
	st := []string{"401", "403"}
	hasPath := strings.Contains(op.path, "{")
	if op.body != nil || len(op.query) > 0 || hasPath || op.path == "/rpc" {
		st = append(st, "400")
	}
	if hasPath {
		st = append(st, "404")
	}
	if op.method == "POST" && op.path != "/rpc" {
		st = append(st, "409", "413")
		if strings.HasPrefix(op.path, "/v1/turns") || strings.HasPrefix(op.path, "/v1/approvals") || strings.HasPrefix(op.path, "/v1/hooks") {
			st = append(st, "422")
		}
		if op.path == "/v1/turns" || strings.HasSuffix(op.path, "/decisions") || strings.HasSuffix(op.path, "/exec") || strings.HasPrefix(op.path, "/v1/hooks") {
			st = append(st, "429") // quota_exceeded
		}
	}
	if slices.Contains(op.query, "after") || slices.Contains(op.query, "after_position") {
		st = append(st, "504") // read_model_lagging
	}
	return append(st, "503")
}

// refineBody closes every object of a request body schema (the server
// refuses unknown fields) and, below the top level, drops the required
// lists derived from the Go types: a nested field a client leaves out takes
// its default (the server enforces what it needs, with a 400 naming it).
func refineBody(s any) { refine(s, 0) }

func refine(s any, depth int) {
	switch v := s.(type) {
	case map[string]any:
		if _, ok := v["properties"]; ok && v["type"] == "object" {
			if _, set := v["additionalProperties"]; !set {
				v["additionalProperties"] = false
			}
			if depth > 0 {
				delete(v, "required")
			}
			for _, c := range v["properties"].(map[string]any) {
				refine(c, depth+1)
			}
		}
		for k, c := range v {
			if k != "properties" {
				refine(c, depth+1)
			}
		}
	case []any:
		for _, c := range v {
			refine(c, depth)
		}
	}
}

// optionalBody lists the endpoints that take an empty body.
var optionalBody = map[string]bool{
	"POST /v1/turns/{turn_id}/complete": true, "POST /v1/turns/{turn_id}/interrupt": true, "POST /v1/turns/{turn_id}/fail": true,
}

// refineHookBody: Claude Code's hook payloads differ by event and grow over
// time; the server requires only what it reads.
func refineHookBody(op operation, body map[string]any) {
	if op.path == "/v1/hooks/claude-code" {
		delete(body, "required")
		delete(body, "additionalProperties")
	}
}

// refineHookAnswer: the hook's body is Claude Code's; the position of the
// hook's last event is a header.
func refineHookAnswer(op operation, ok map[string]any) {
	if op.path == "/v1/hooks/claude-code" {
		ok["headers"] = map[string]any{PositionHeader: map[string]any{
			"description": "the store position of the last event the hook recorded (absent when it recorded none): pass it as ?after= to a read that must include it",
			"schema":      map[string]any{"type": "string"}}}
	}
}
