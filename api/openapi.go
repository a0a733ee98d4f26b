package api

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"time"

	"turnstile/domain"
	"turnstile/domain/turn"
	"turnstile/internal/serverid"
	"turnstile/projections"
)

// operation describes one endpoint for the OpenAPI document.
type operation struct {
	method, path, summary string
	query                 []string // query parameter names
	body                  any      // request body type, or nil
	response              any      // 2xx response type, or nil
	status                string   // 2xx status (default "200")
	public                bool     // no bearer token needed
	// op is what the endpoint does: the roles that may call it follow from
	// domain's role table.
	op domain.Operation
}

// operations lists every endpoint; TestOpenAPIMatchesRouter checks it
// against the router.
var operations = []operation{
	{method: "GET", path: "/healthz", summary: "Liveness", public: true},
	{method: "GET", path: "/v1/server/identity", summary: "The server's proof of its identity: its key signs the client's nonce and the addresses it listens on", public: true, query: []string{"nonce"}, response: serverid.Proof{}},
	{method: "GET", path: "/readyz", op: domain.OpServiceRead, summary: "Readiness: the store is reachable and the read models caught up"},
	{method: "GET", path: "/metrics", op: domain.OpMetricsRead, summary: "Prometheus metrics (text exposition format)"},
	{method: "GET", path: "/openapi.json", op: domain.OpServiceRead, summary: "This document"},
	{method: "POST", path: "/v1/hooks/claude-code", op: domain.OpTurnDecide, summary: "Claude Code's http hook: one hook event (UserPromptSubmit, PreToolUse, PostToolUse, Stop, SubagentStop, SessionEnd) in, the hook's answer out", body: claudeCodeHook{}, response: HookAnswer{}},
	{method: "GET", path: "/rpc", op: domain.OpServiceRead, summary: "JSON-RPC 2.0 over a WebSocket (Upgrade: websocket): the same calls as POST /rpc, and the notifications of /v1/events (from the upgrade on, from the same per-process broadcast) pushed as JSON-RPC notifications; a socket more than serve --sse-buffer events behind is sent a JSON-RPC error (data.code slow_consumer, data.last_event_id to read the rest from /v1/events) and closed; the credential is authenticated again before each call and every second, and a revoked one gets a JSON-RPC error (data.code credential_revoked) and the socket closes", query: []string{"turn_id", "workspace_id"}},
	{method: "POST", path: "/rpc", op: domain.OpServiceRead, summary: "JSON-RPC 2.0: turn/start, turn/get, turn/cancel, turn/items, turn/permission/request/respond"},
	{method: "GET", path: "/v1/events", op: domain.OpEventsSubscribe, summary: "Server-Sent Events: turn/started, turn/permission/request/opened|resolved, turn/permission/audit, turn/completed|interrupted|failed; id is the store position, resumable with Last-Event-ID; a client more than serve --sse-buffer events behind is sent event: error (code slow_consumer, with the last_event_id to resume from) and the stream ends; a stream whose credential is revoked (checked every second) gets event: error (code credential_revoked) and ends", query: []string{"turn_id", "workspace_id", "last_event_id", "from"}},
	{method: "POST", path: "/v1/turns", op: domain.OpTurnStart, summary: "Start a turn (idempotent for the same turn_id and body)", body: StartTurnRequest{}, response: TurnResponse{}, status: "201"},
	{method: "GET", path: "/v1/turns", op: domain.OpTurnRead, summary: "List turns", query: []string{"workspace_id", "status", "after", "limit", "after_position"}, response: struct {
		Turns []projections.TurnView `json:"turns"`
	}{}},
	{method: "GET", path: "/v1/turns/{turn_id}", op: domain.OpTurnRead, summary: "A turn and its effective security snapshot", query: []string{"after"}, response: TurnResponse{}},
	{method: "POST", path: "/v1/turns/{turn_id}/decisions", op: domain.OpTurnDecide, summary: "Decide one tool invocation: allow, deny or ask", body: DecisionRequest{}, response: DecisionResponse{}},
	{method: "POST", path: "/v1/turns/{turn_id}/exec", op: domain.OpTurnExec, summary: "Decide and run a command under the turn's snapshot", query: []string{"wait"}, body: ExecRequest{}, response: ExecResponse{}},
	{method: "POST", path: "/v1/turns/{turn_id}/permissions", op: domain.OpTurnChangeProfile, summary: "Change the permission profile mid-turn", body: ChangePermissionsRequest{}, response: TurnResponse{}},
	{method: "POST", path: "/v1/turns/{turn_id}/complete", op: domain.OpTurnEnd, summary: "Complete the turn (cancels open requests)", body: EndTurnRequest{}, response: TurnResponse{}},
	{method: "POST", path: "/v1/turns/{turn_id}/interrupt", op: domain.OpTurnEnd, summary: "Interrupt the turn (cancels open requests)", body: EndTurnRequest{}, response: TurnResponse{}},
	{method: "POST", path: "/v1/turns/{turn_id}/fail", op: domain.OpTurnEnd, summary: "Fail the turn (cancels open requests)", body: EndTurnRequest{}, response: TurnResponse{}},
	{method: "GET", path: "/v1/turns/{turn_id}/events", op: domain.OpTurnHistory, summary: "The raw, replayable history with versions and hashes", query: []string{"from", "limit"}, response: struct {
		TurnID string        `json:"turn_id"`
		From   int           `json:"from"`
		Events []StoredEvent `json:"events"`
		Next   *int          `json:"next,omitempty"`
	}{}},
	{method: "GET", path: "/v1/turns/{turn_id}/timeline", op: domain.OpTurnRead, summary: "Timeline rows for a client UI", query: []string{"after"}, response: struct {
		TurnID string                    `json:"turn_id"`
		Rows   []projections.TimelineRow `json:"rows"`
	}{}},
	{method: "GET", path: "/v1/turns/{turn_id}/audit", op: domain.OpTurnHistory, summary: "Audit rows of the turn", query: []string{"offset", "limit", "after"}, response: struct {
		TurnID string                 `json:"turn_id"`
		Rows   []projections.AuditRow `json:"rows"`
	}{}},
	{method: "GET", path: "/v1/turns/{turn_id}/verify", op: domain.OpTurnHistory, summary: "Recompute the turn's hash chain from the stored events", response: VerifyResponse{}},
	{method: "GET", path: "/v1/audit/verify", op: domain.OpTurnHistory, summary: "Check every turn's hash chain in one pass over the store, where the events are (turnstile audit verify --all): newline-delimited JSON VerifyLine objects, progress lines while it runs, then one head per turn and done, or the first tampered event", response: VerifyLine{}},
	{method: "GET", path: "/v1/turns/{turn_id}/explain", op: domain.OpTurnRead, summary: "What the turn's snapshot allows at ?path= (read and write, and the profile rule that decides it) or ?url= (&method=)", query: []string{"path", "url", "method", "after"}, response: ExplainResponse{}},
	{method: "GET", path: "/v1/turns/{turn_id}/egress", op: domain.OpTurnDecide, summary: "The turn's egress proxy URL with its per-turn credential, for the runtime's own web tools (serve --egress-listen)", response: EgressResponse{}},
	{method: "GET", path: "/v1/approvals", op: domain.OpApprovalRead, summary: "Approval requests: every pending one, and the resolved ones of open and recent turns (of any turn with turn_id)", query: []string{"status", "turn_id", "workspace_id", "after"}, response: struct {
		Approvals []projections.ApprovalView `json:"approvals"`
		// Position is the store position the list reflects: subscribe to
		// /v1/events from it (Last-Event-ID) to miss nothing.
		Position string `json:"position"`
	}{}},
	{method: "GET", path: "/v1/approvals/{request_id}", op: domain.OpApprovalRead, summary: "One approval request; ?wait=30s long-polls until it is resolved; a request of a turn that ended before the recent ones (no longer in memory) is found with ?turn_id=", query: []string{"wait", "turn_id", "after"}, response: projections.ApprovalView{}},
	{method: "POST", path: "/v1/credentials", op: domain.OpCredentialManage, summary: "Create a named credential (role, optional workspaces); the token is shown once", body: CreateCredentialRequest{}, response: NewCredential{}, status: "201"},
	{method: "GET", path: "/v1/credentials", op: domain.OpCredentialManage, summary: "List credentials (never their secrets)", response: struct {
		Credentials []domain.Credential `json:"credentials"`
	}{}},
	{method: "POST", path: "/v1/credentials/{name}/revoke", op: domain.OpCredentialManage, summary: "Revoke a credential (by name or id); in force at once on every instance", response: domain.Credential{}},
	{method: "POST", path: "/v1/approvals/{request_id}/respond", op: domain.OpApprovalRespond, summary: "Resolve a request (allow_once, allow_for_turn, deny, cancelled); the first resolution wins", body: RespondRequest{}, response: RespondResponse{}},
}

// operationOf is the operation of a documented endpoint; an undocumented
// one, or one without an operation, is a programming error caught when the
// router is built.
func operationOf(method, path string) domain.Operation {
	for _, o := range operations {
		if o.method == method && o.path == path && !o.public && o.op != "" {
			return o.op
		}
	}
	panic("api: no operation (and so no roles) documented for " + method + " " + path)
}

// rpcOperations is the operation of each JSON-RPC method (POST /rpc itself
// only needs a credential; each call is authorised on its own).
var rpcOperations = map[string]domain.Operation{
	"turn/start":                      domain.OpTurnStart,
	"turn/get":                        domain.OpTurnRead,
	"turn/cancel":                     domain.OpTurnEnd,
	"turn/items":                      domain.OpTurnRead,
	"turn/permission/request/respond": domain.OpApprovalRespond,
}

func roleNames(op domain.Operation) []string { return names(domain.RolesAllowed(op)) }

// enums gives the wire values of enum types for schemas.
var enums = map[reflect.Type][]string{
	reflect.TypeFor[domain.Mode]():              names(domain.Modes),
	reflect.TypeFor[domain.Behavior]():          {"allow", "ask", "deny"},
	reflect.TypeFor[domain.ActionKind]():        names(domain.ActionKinds),
	reflect.TypeFor[domain.Reason]():            names(domain.Reasons),
	reflect.TypeFor[domain.Resolution]():        names(domain.Resolutions),
	reflect.TypeFor[domain.ClientResolution]():  names(domain.ClientResolutions),
	reflect.TypeFor[domain.ExecutionBackend]():  names(domain.ExecutionBackends),
	reflect.TypeFor[domain.SandboxMode]():       names(domain.SandboxModes),
	reflect.TypeFor[domain.NetworkMode]():       names(domain.NetworkModes),
	reflect.TypeFor[domain.ProfileSource]():     names(domain.ProfileSources),
	reflect.TypeFor[domain.Access]():            {"read", "write", "deny"},
	reflect.TypeFor[domain.EnforcementStatus](): {"active", "partially_active", "unavailable"},
	reflect.TypeFor[domain.Role]():              names(domain.Roles),
	reflect.TypeFor[turn.Status]():              {"in_progress", "awaiting_approval", "completed", "interrupted", "failed"},
}

func names[T ~string](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}

var (
	rawType  = reflect.TypeFor[json.RawMessage]()
	timeType = reflect.TypeFor[time.Time]()
)

// schemaOf derives a JSON Schema from a Go type and its json tags, so the
// document cannot drift from the code.
func schemaOf(t reflect.Type, seen map[reflect.Type]bool) map[string]any {
	if vals, ok := enums[t]; ok {
		return map[string]any{"type": "string", "enum": vals}
	}
	switch {
	case t == rawType:
		return map[string]any{"description": "any JSON value"}
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case t == actorType:
		return map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"},
			"role": map[string]any{"type": "string", "enum": append(names(domain.Roles), string(domain.SystemActor.Role))}}}
	case t == scopeType:
		return map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"},
			"description": "what the invocation touches: keys sorted, string values (sensitive ones redacted)"}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return schemaOf(t.Elem(), seen)
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint64, reflect.Uint8:
		return map[string]any{"type": "integer"}
	case reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice:
		// null is accepted (and may be answered) as an empty list.
		return map[string]any{"type": []string{"array", "null"}, "items": schemaOf(t.Elem(), seen)}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": schemaOf(t.Elem(), seen)}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Struct:
		if seen[t] {
			return map[string]any{"type": "object"}
		}
		seen[t] = true
		defer delete(seen, t)
		props := map[string]any{}
		var required []string
		addStruct(t, props, &required, seen)
		s := map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			s["required"] = required
		}
		return s
	}
	return map[string]any{}
}

func addStruct(t reflect.Type, props map[string]any, required *[]string, seen map[reflect.Type]bool) {
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			addStruct(ft, props, required, seen)
			continue
		}
		if name == "" {
			name = f.Name
		}
		props[name] = schemaOf(f.Type, seen)
		if !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") && f.Type.Kind() != reflect.Pointer {
			*required = append(*required, name)
		}
	}
}

// openapiDoc is the document, built once.
var openapiDoc = sync.OnceValue(buildOpenAPI)

// buildOpenAPI renders the document from operations and the types.
func buildOpenAPI() []byte {
	paths := map[string]map[string]any{}
	errResp := map[string]any{"description": "error", "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}}}
	for _, op := range operations {
		o := map[string]any{"summary": op.summary, "operationId": operationID(op.method, op.path)}
		var ps []map[string]any
		for _, seg := range strings.Split(op.path, "/") {
			if strings.HasPrefix(seg, "{") {
				ps = append(ps, map[string]any{"name": strings.Trim(seg, "{}"), "in": "path", "required": true, "schema": pathParamSchema(strings.Trim(seg, "{}"))})
			}
		}
		for _, q := range op.query {
			ps = append(ps, map[string]any{"name": q, "in": "query", "required": false, "schema": querySchema(op.path, q)})
		}
		if len(ps) > 0 {
			o["parameters"] = ps
		}
		if op.body != nil {
			body := schemaOf(reflect.TypeOf(op.body), map[reflect.Type]bool{})
			refineBody(body)
			refineHookBody(op, body)
			o["requestBody"] = map[string]any{"required": !optionalBody[op.method+" "+op.path], "content": map[string]any{"application/json": map[string]any{"schema": body}}}
		} else if op.method == "POST" && op.path == "/rpc" {
			o["requestBody"] = rpcRequestBody
		}
		status := op.status
		if status == "" {
			status = "200"
		}
		ok := map[string]any{"description": "success"}
		if op.response != nil {
			ok["content"] = map[string]any{"application/json": map[string]any{"schema": schemaOf(reflect.TypeOf(op.response), map[reflect.Type]bool{})}}
		}
		refineHookAnswer(op, ok)
		responses := map[string]any{status: ok, "default": errResp}
		for st, r := range extraSuccess(op, ok) {
			responses[st] = r
		}
		if special, ok := specialResponses[op.method+" "+op.path]; ok {
			// The special answers replace the default success answer (once:
			// deleting it inside the loop would drop a special "200" set by
			// an earlier iteration, in map order).
			delete(responses, status)
			for st, r := range special {
				responses[st] = r
			}
		}
		for _, st := range errorStatuses(op) {
			if responses[st] == nil {
				responses[st] = map[string]any{"$ref": "#/components/responses/Error"}
			}
		}
		o["responses"] = responses
		if op.public {
			o["security"] = []any{}
		} else {
			roles := roleNames(op.op)
			o["x-turnstile-operation"], o["x-turnstile-roles"] = op.op, roles
			o["description"] = "Requires a bearer credential with role " + strings.Join(roles, ", ") +
				" (a workspace-scoped credential only reaches its workspaces); any other is 403 forbidden."
			if op.path == "/rpc" {
				rpc := map[string]any{}
				for m, mop := range rpcOperations {
					rpc[m] = roleNames(mop)
				}
				o["x-turnstile-rpc-roles"] = rpc
				o["description"] = "Any credential may call; each method is authorised like its REST counterpart (x-turnstile-rpc-roles): a refused call is a JSON-RPC error with data.status 403."
			}
		}
		if paths[op.path] == nil {
			paths[op.path] = map[string]any{}
		}
		paths[op.path][strings.ToLower(op.method)] = o
	}
	schemas := map[string]any{"Error": map[string]any{"type": "object", "required": []string{"error"}, "properties": map[string]any{
		"error": schemaOf(reflect.TypeFor[Error](), map[reflect.Type]bool{})}}}
	addToolSchemas(paths, schemas)
	addOperationDocs(paths)
	addResponseExamples(paths)
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{"title": "turnstile", "version": "1",
			"description": "Decides, enforces and records what an AI agent may do during one turn."},
		"servers": []any{map[string]any{"url": "/", "description": "the turnstile server that serves this document"}},
		"paths":   paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer",
				"description": "A named credential's token (tsk_…, from `turnstile token create --name N --role R [--workspace W]`) or the configured admin token. Roles: runtime (start turns, decide, exec, narrow its turns' permissions, end turns; never widen them, never respond to approvals), approver (list and answer approvals, read turns and timelines), auditor (read everything, append nothing), admin (everything, including credentials)."}},
			"responses": map[string]any{"Error": errResp},
			"schemas":   schemas,
		},
		"security": []any{map[string]any{"bearer": []any{}}},
	}
	b, _ := json.MarshalIndent(doc, "", "  ")
	return b
}

func (s *Server) openapi(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(openapiDoc())
}
