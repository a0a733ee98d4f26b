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
			if path == "/healthz" {
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
