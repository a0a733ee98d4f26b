package tests

// The served OpenAPI document, checked the way a client generator and an
// API tester use it: every call below is validated, request and response,
// against /openapi.json with kin-openapi, so a drift fails here.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// specClient sends requests with the server's token and validates each
// request and response against the served document.
type specClient struct {
	t      *testing.T
	s      *Server
	doc    *openapi3.T
	router routers.Router
}

func newSpecClient(t *testing.T, s *Server) *specClient {
	t.Helper()
	status, raw := s.Request("GET", "/openapi.json", nil)
	if status != http.StatusOK {
		t.Fatalf("GET /openapi.json: %d", status)
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(raw)
	if err != nil {
		t.Fatalf("loading the document: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the document is not valid: %v", err)
	}
	for path, item := range doc.Paths.Map() {
		for m, op := range item.Operations() {
			if strings.ContainsAny(op.OperationID, "{}/") {
				t.Errorf("%s %s: operationId %q", m, path, op.OperationID)
			}
		}
	}
	doc.Servers = openapi3.Servers{{URL: s.URL}}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return &specClient{t: t, s: s, doc: doc, router: router}
}

// call sends one request, checks its status, validates both directions and
// returns the decoded answer.
func (c *specClient) call(method, path string, body any, want int) map[string]any {
	c.t.Helper()
	var raw []byte
	if body != nil {
		if b, ok := body.(string); ok {
			raw = []byte(b)
		} else {
			raw, _ = json.Marshal(body)
		}
	}
	req, _ := http.NewRequest(method, c.s.URL+path, bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer "+c.s.Token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		c.t.Fatalf("%s %s: not in the document: %v", method, path, err)
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	reqErr := openapi3filter.ValidateRequest(context.Background(), in)
	req.Body = io.NopCloser(bytes.NewReader(raw))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		c.t.Fatalf("%s %s: %d, want %d: %s", method, path, resp.StatusCode, want, out)
	}
	// A request the server accepts must be one the document accepts; one
	// it refuses with 400 should be refused by the document too, where
	// the document can say so.
	if reqErr != nil && want < 400 {
		c.t.Errorf("%s %s: the document refuses a request the server accepts: %v", method, path, reqErr)
	}
	if err := openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: resp.StatusCode, Header: resp.Header, Body: io.NopCloser(bytes.NewReader(out)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true},
	}); err != nil {
		c.t.Errorf("%s %s: the %d answer does not match the document: %v\n%s", method, path, resp.StatusCode, err, out)
	}
	var m map[string]any
	_ = json.Unmarshal(out, &m)
	return m
}

func errField(m map[string]any) string {
	e, _ := m["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	return str(d["field"])
}

// TestOpenAPIReplay replays a representative session against the served
// document, including the answers the document used to leave out (200 for
// a repeated start, 202 from exec, 409, 422, every 4xx).
func TestOpenAPIReplay(t *testing.T) {
	s := StartServer(t, "")
	c := newSpecClient(t, s)
	root := workspace(t)
	start := map[string]any{"turn_id": "oa-1", "workspace_id": "ws", "thread_id": "th", "workspace_root": root,
		"permission_profile": map[string]any{"mode": "supervised"}}
	c.call("GET", "/healthz", nil, 200)
	c.call("GET", "/readyz", nil, 200)
	c.call("POST", "/v1/turns", start, 201)
	c.call("POST", "/v1/turns", start, 200) // the same request again
	// A valid start of a taken id (a start is checked whole first).
	other := map[string]any{"turn_id": "oa-1", "workspace_id": "ws", "thread_id": "another", "workspace_root": root}
	c.call("POST", "/v1/turns", other, 409)
	// Validation before existence: an existing id without its fields is 400.
	if f := errField(c.call("POST", "/v1/turns", map[string]any{"turn_id": "oa-1"}, 400)); f != "workspace_id" {
		t.Errorf("turn_id alone: field %q, want workspace_id", f)
	}
	// A decoding error inside a nested type is a 400 naming the field.
	capped := map[string]any{"turn_id": "oa-child", "workspace_id": "ws", "thread_id": "th", "parent_turn_id": "oa-1", "task_cap": map[string]any{"policy": map[string]any{}}}
	if f := errField(c.call("POST", "/v1/turns", capped, 400)); f != "task_cap.policy.default_behavior" {
		t.Errorf("task_cap.policy {}: field %q, want its whole path task_cap.policy.default_behavior", f)
	}
	c.call("POST", "/v1/turns", `{"turn_id":"oa-2","workspace_id":"ws","thread_id":"th","bogus":1}`, 400)
	// null for a list is accepted as empty, and the document says so.
	c.call("POST", "/v1/turns", map[string]any{"turn_id": "oa-null", "workspace_id": "ws", "thread_id": "th", "workspace_root": root, "project_roots": nil}, 201)
	c.call("GET", "/v1/turns", nil, 200)
	c.call("GET", "/v1/turns/oa-1", nil, 200)
	c.call("GET", "/v1/turns/nope", nil, 404)
	c.call("GET", "/v1/turns?limit=1001", nil, 400)

	exec := map[string]any{"tool_call_id": "x1", "argv": []string{"echo", "hi"}}
	asked := c.call("POST", "/v1/turns/oa-1/exec", exec, 202)
	rid := str(asked["request"].(map[string]any)["request_id"])
	c.call("GET", "/v1/approvals?status=pending", nil, 200)
	c.call("GET", "/v1/approvals/"+rid, nil, 200)
	c.call("POST", "/v1/approvals/"+rid+"/respond", map[string]any{"resolution": "expired"}, 400)
	c.call("POST", "/v1/approvals/"+rid+"/respond", map[string]any{"resolution": "allow_once"}, 200)
	c.call("POST", "/v1/approvals/"+rid+"/respond", map[string]any{"resolution": "deny"}, 409)
	c.call("POST", "/v1/turns/oa-1/exec?wait=5s", exec, 200)
	c.call("POST", "/v1/turns/oa-1/decisions", map[string]any{"tool_call_id": "d1", "tool_name": "read_file", "arguments": map[string]any{"path": "a.txt"}}, 200)
	c.call("GET", "/v1/turns/oa-1/events", nil, 200)
	c.call("GET", "/v1/turns/oa-1/events?from=abc", nil, 400)
	c.call("GET", "/v1/turns/oa-1/timeline", nil, 200)
	c.call("GET", "/v1/turns/oa-1/audit", nil, 200)
	c.call("GET", "/v1/turns/oa-1/verify", nil, 200)
	c.call("POST", "/v1/turns/oa-1/complete", map[string]any{}, 200)
	c.call("POST", "/v1/turns/oa-1/decisions", map[string]any{"tool_call_id": "d2", "tool_name": "read_file", "arguments": map[string]any{"path": "a.txt"}}, 422)
	c.call("GET", "/v1/credentials", nil, 200)
	c.call("POST", "/rpc", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "turn/get", "params": map[string]any{"turn_id": "oa-1"}}, 200)
}

// TestEventsFromRefusesGarbage: ?from= that does not parse is a 400, not
// "from now"; start and now are the controls.
func TestEventsFromRefusesGarbage(t *testing.T) {
	s := StartServer(t, "")
	status, body := s.Request("GET", "/v1/events?from=abc", nil)
	if wantError(t, status, body, 400, "invalid_enum").Details["field"] != "from" {
		t.Fatalf("from=abc: %s", body)
	}
	for _, q := range []string{"from=start", "from=now", ""} {
		st := s.subscribe(q, "")
		st.Close()
	}
}

// TestMethodNotAllowedHasAllow: a 405 names the allowed methods (RFC 9110).
func TestMethodNotAllowedHasAllow(t *testing.T) {
	s := StartServer(t, "")
	for path, want := range map[string]string{"/v1/turns": "GET, POST", "/v1/turns/x/complete": "POST", "/healthz": "GET"} {
		req, _ := http.NewRequest("DELETE", s.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+s.Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 405 || resp.Header.Get("Allow") != want {
			t.Errorf("DELETE %s: %d Allow %q, want 405 %q", path, resp.StatusCode, resp.Header.Get("Allow"), want)
		}
	}
}
