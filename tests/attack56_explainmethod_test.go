package tests

import (
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"testing"
)

// attack56ExplainProfile: a network limited to GET, HEAD and OPTIONS, one
// host allowed, decided without a question.
const attack56ExplainProfile = `
[permissions.readnet]
extends = ":workspace"
[permissions.readnet.network]
enabled = true
mode = "limited"
[permissions.readnet.network.domains]
"api.example.com" = "allow"
[permissions.readnet.approvals]
policy = "full_access"
`

// TestAttack56ExplainAllowsNamedMethod (fifty-sixth review, low): under a
// network limited to GET, HEAD and OPTIONS, the egress proxy and the
// decision path both refuse a request whose query names another method
// (?_method=DELETE; domain.NamedMethods, the twenty-seventh review), but
// GET /v1/turns/{id}/explain?url= checks the URL (CheckURL) and its
// ?method= alone (api/explain.go explainTurn: snap.Network.MethodAllowed
// of the method parameter), never the methods the URL itself names: it
// answers allowed for a URL every enforcing path refuses. A runtime (or a
// person) that asks explain before fetching is told the request passes.
//
// Control: web_fetch of that URL is denied method_not_allowed, and explain
// of the plain URL answers allowed. Attack: explain of the URL with
// ?_method=DELETE must not answer allowed.
func TestAttack56ExplainAllowsNamedMethod(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(file, []byte(attack56ExplainProfile), 0o644); err != nil {
		t.Fatal(err)
	}
	dns := dnsServer(t, map[string][]netip.Addr{"api.example.com": {netip.MustParseAddr("93.184.216.34")}})
	s := StartServer(t, "", "--profiles", file, "--dns-server", dns)
	root := workspace(t)
	if status, body := s.Do("POST", "/v1/turns", map[string]any{"turn_id": "lim", "workspace_id": "ws", "thread_id": "th",
		"workspace_root": root, "permission_profile": map[string]any{"profile": "readnet"}}); status != http.StatusCreated {
		t.Fatalf("start: %d %s", status, body)
	}
	plain := "https://api.example.com/v1/repos/1"
	named := plain + "?_method=DELETE"
	if d := s.decide("lim", "qry", "web_fetch", map[string]any{"url": named}); d.Decision != "deny" || d.Refusal != "method_not_allowed" {
		t.Fatalf("control: web_fetch %s under limited: %+v, want deny method_not_allowed", named, d)
	}
	explain := func(u string) (allowed bool, refusal string) {
		var out struct {
			Network *struct {
				Allowed bool   `json:"allowed"`
				Refusal string `json:"refusal"`
			} `json:"network"`
		}
		s.JSON("GET", "/v1/turns/lim/explain?url="+url.QueryEscape(u)+"&method=GET", nil, http.StatusOK, &out)
		if out.Network == nil {
			t.Fatalf("explain %s: no network answer", u)
		}
		return out.Network.Allowed, out.Network.Refusal
	}
	if ok, why := explain(plain); !ok {
		t.Fatalf("control: explain of %s under limited: refused %s, want allowed", plain, why)
	}
	if ok, _ := explain(named); ok {
		t.Errorf("explain of %s under limited answers allowed; web_fetch and the egress proxy refuse it (method_not_allowed)", named)
	}
}
