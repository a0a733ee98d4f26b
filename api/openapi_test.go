package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
)

// TestOpenAPIMatchesRouter fails when an endpoint is routed but not
// documented, or documented but not routed.
func TestOpenAPIMatchesRouter(t *testing.T) {
	s := &Server{}
	router, ok := s.Handler().(chi.Routes)
	if !ok {
		t.Fatal("handler is not a chi router")
	}
	var routed []string
	err := chi.Walk(router, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if strings.HasPrefix(route, "/ui") {
			return nil // the console (ui.go), not part of the API
		}
		route = strings.TrimSuffix(strings.ReplaceAll(route, "/*", ""), "/")
		if route == "" {
			route = "/"
		}
		routed = append(routed, method+" "+route)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		OpenAPI string                               `json:"openapi"`
		Paths   map[string]map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(openapiDoc(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi %q", doc.OpenAPI)
	}
	var documented []string
	for path, methods := range doc.Paths {
		for m, op := range methods {
			documented = append(documented, strings.ToUpper(m)+" "+path)
			if _, ok := op["responses"]; !ok {
				t.Errorf("%s %s has no responses", m, path)
			}
		}
	}
	sort.Strings(routed)
	sort.Strings(documented)
	if strings.Join(routed, "\n") != strings.Join(documented, "\n") {
		t.Fatalf("router and OpenAPI document differ:\nrouted:\n%s\n\ndocumented:\n%s", strings.Join(routed, "\n"), strings.Join(documented, "\n"))
	}
	if !strings.Contains(string(openapiDoc()), `"already_resolved"`) && !strings.Contains(string(openapiDoc()), `"resolution"`) {
		t.Fatal("schemas missing")
	}
}

// TestOpenAPIRoles: the document declares the bearer scheme and, for every
// authenticated operation, the roles that may call it, from the same table
// the router enforces.
func TestOpenAPIRoles(t *testing.T) {
	var doc struct {
		Components struct {
			SecuritySchemes map[string]map[string]any `json:"securitySchemes"`
		} `json:"components"`
		Security []map[string]any                     `json:"security"`
		Paths    map[string]map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(openapiDoc(), &doc); err != nil {
		t.Fatal(err)
	}
	if b := doc.Components.SecuritySchemes["bearer"]; b["type"] != "http" || b["scheme"] != "bearer" || len(doc.Security) != 1 {
		t.Fatalf("security scheme %v / %v", doc.Components.SecuritySchemes, doc.Security)
	}
	for path, methods := range doc.Paths {
		for m, op := range methods {
			if path == "/healthz" || path == "/v1/server/identity" {
				if sec, ok := op["security"].([]any); !ok || len(sec) != 0 {
					t.Errorf("%s %s is public: its security should be empty, not %v", m, path, op["security"])
				}
				continue
			}
			roles, _ := op["x-turnstile-roles"].([]any)
			if len(roles) == 0 || roles[len(roles)-1] != "admin" {
				t.Errorf("%s %s: roles %v", m, path, op["x-turnstile-roles"])
			}
		}
	}
	respond := doc.Paths["/v1/approvals/{request_id}/respond"]["post"]["x-turnstile-roles"]
	if fmt.Sprint(respond) != "[approver admin]" {
		t.Fatalf("respond roles %v, want [approver admin]", respond)
	}
	if fmt.Sprint(doc.Paths["/v1/turns/{turn_id}/decisions"]["post"]["x-turnstile-roles"]) != "[runtime admin]" {
		t.Fatal("decisions are not the runtime's")
	}
}

// TestOpenAPIForGenerators: the items a client generator and an API tester
// tripped on — operationIds, servers, declared content, every 4xx with the
// error schema, typed parameters, closed request bodies, scope as an
// object, and no client "expired".
func TestOpenAPIForGenerators(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(openapiDoc(), &doc); err != nil {
		t.Fatal(err)
	}
	if s, _ := doc["servers"].([]any); len(s) != 1 {
		t.Fatalf("servers %v", doc["servers"])
	}
	paths := doc["paths"].(map[string]any)
	op := func(method, path string) map[string]any {
		o, _ := paths[path].(map[string]any)[method].(map[string]any)
		if o == nil {
			t.Fatalf("%s %s is not documented", method, path)
		}
		return o
	}
	ids := map[string]bool{}
	for path, ms := range paths {
		for m, o := range ms.(map[string]any) {
			id := o.(map[string]any)["operationId"].(string)
			if strings.ContainsAny(id, "{}/") || ids[id] {
				t.Errorf("%s %s: operationId %q", m, path, id)
			}
			ids[id] = true
		}
	}
	if id := op("get", "/v1/turns/{turn_id}")["operationId"]; id != "get_v1_turns_turn_id" {
		t.Errorf("operationId %v", id)
	}
	responses := func(method, path string) map[string]any { return op(method, path)["responses"].(map[string]any) }
	for _, c := range []struct{ method, path, status, content string }{
		{"get", "/healthz", "200", "application/json"},
		{"get", "/readyz", "200", "application/json"},
		{"get", "/metrics", "200", "text/plain"},
		{"get", "/v1/events", "200", "text/event-stream"},
		{"post", "/rpc", "200", "application/json"},
		{"post", "/v1/turns", "200", "application/json"},
		{"post", "/v1/turns", "201", "application/json"},
		{"post", "/v1/turns/{turn_id}/exec", "202", "application/json"},
	} {
		r, _ := responses(c.method, c.path)[c.status].(map[string]any)
		if _, ok := r["content"].(map[string]any)[c.content]; !ok {
			t.Errorf("%s %s %s declares no %s content: %v", c.method, c.path, c.status, c.content, r)
		}
	}
	if op("post", "/rpc")["requestBody"] == nil || responses("get", "/rpc")["101"] == nil {
		t.Error("/rpc declares no request body or no upgrade")
	}
	for _, st := range []string{"400", "401", "403", "404", "409", "413", "422", "429", "503"} {
		if r, _ := responses("post", "/v1/turns/{turn_id}/decisions")[st].(map[string]any); r["$ref"] != "#/components/responses/Error" {
			t.Errorf("decisions %s: %v", st, r)
		}
	}
	params := map[string]any{}
	for _, p := range op("get", "/v1/approvals/{request_id}")["parameters"].([]any) {
		params[p.(map[string]any)["name"].(string)] = p.(map[string]any)["schema"]
	}
	for _, p := range op("get", "/v1/approvals")["parameters"].([]any) {
		params[p.(map[string]any)["name"].(string)] = p.(map[string]any)["schema"]
	}
	if s := params["wait"].(map[string]any); s["pattern"] == nil {
		t.Errorf("wait %v", s)
	}
	if s := params["status"].(map[string]any); fmt.Sprint(s["enum"]) != "[pending resolved all]" {
		t.Errorf("status %v", s)
	}
	if s := params["request_id"].(map[string]any); s["pattern"] != idPattern.String() {
		t.Errorf("request_id %v", s)
	}
	body := op("post", "/v1/approvals/{request_id}/respond")["requestBody"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
	if body["additionalProperties"] != false {
		t.Error("the respond body is not closed")
	}
	res := fmt.Sprint(body["properties"].(map[string]any)["resolution"].(map[string]any)["enum"])
	if strings.Contains(res, "expired") || !strings.Contains(res, "allow_once") {
		t.Errorf("client resolutions %s", res)
	}
	audit := responses("get", "/v1/turns/{turn_id}/audit")["200"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
	row := audit["properties"].(map[string]any)["rows"].(map[string]any)["items"].(map[string]any)
	if scope := row["properties"].(map[string]any)["scope"].(map[string]any); scope["type"] != "object" {
		t.Errorf("audit scope %v, want an object", scope)
	}
}
