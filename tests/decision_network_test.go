package tests

import (
	"fmt"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"testing"
)

// TestDecisionHostsResolvingToLocalAddresses: at decision time a URL's host
// name is resolved (through the server's --dns-server here) and every
// address it resolves to is judged as that address: a public-looking name
// that resolves to loopback, a private range or the metadata address is
// refused as such; a name for a public address is asked about as before.
func TestDecisionHostsResolvingToLocalAddresses(t *testing.T) {
	t.Parallel()
	dns := dnsServer(t, map[string][]netip.Addr{
		"127.0.0.1.nip.io":   {netip.MustParseAddr("127.0.0.1")},
		"mixed.example.org":  {netip.MustParseAddr("93.184.215.14"), netip.MustParseAddr("10.1.2.3")},
		"v6.example.org":     {netip.MustParseAddr("::1")},
		"meta.example.org":   {netip.MustParseAddr("169.254.169.254")},
		"public.example.org": {netip.MustParseAddr("93.184.215.14")},
	}, "slow.example.org")
	s := StartServer(t, "", "--dns-server", dns, "--dns-timeout", "300ms")
	root := workspace(t)
	s.startTurn("n", "ws", "supervised", root)
	// A call that asks is looked up once a person allows it: an allow of a
	// host that leads to a local address is recorded as a deny.
	looked := []struct{ url, refusal string }{
		{"http://127.0.0.1.nip.io/", "localhost_not_allowed"},
		{"https://v6.example.org/", "localhost_not_allowed"},
		{"https://mixed.example.org/", "private_address"},
		{"http://meta.example.org/latest/meta-data/", "private_address"},
		{"https://slow.example.org/", "host_unresolved"},
	}
	for i, c := range looked {
		call := fmt.Sprint("l", i)
		d := s.decide("n", call, "web_fetch", map[string]any{"url": c.url})
		if d.Decision != "ask" || d.Request == nil {
			t.Fatalf("%s: %+v, want ask", c.url, d)
		}
		var out struct{ Resolution, Reason string }
		s.JSON("POST", "/v1/approvals/"+d.Request.RequestID+"/respond", map[string]string{"resolution": "allow_once"}, http.StatusOK, &out)
		if out.Resolution != "deny" || out.Reason != "sandbox_denied" {
			t.Errorf("%s: an allow answered %+v, want deny/sandbox_denied", c.url, out)
		}
		wantDecision(t, c.url+" after the allow", s.decide("n", call, "web_fetch", map[string]any{"url": c.url}), "deny", "sandbox_denied", "")
	}
	// Literal forms of loopback are judged without a lookup, when asked.
	for i, u := range []string{"http://localhost./", "http://LOCALHOST/", "http://a.localhost/", "http://[::ffff:127.0.0.1]/",
		"http://2130706433/", "http://0177.0.0.1/", "http://0x7f.1/"} {
		wantDecision(t, u, s.decide("n", fmt.Sprint("s", i), "web_fetch", map[string]any{"url": u}), "deny", "sandbox_denied", "localhost_not_allowed")
	}
	// Controls: a public address and a name that does not exist ask, and
	// an allow of them is recorded as the allow.
	for i, u := range []string{"https://public.example.org/", "https://nonexistent.example.org/"} {
		call := fmt.Sprint("p", i)
		d := s.decide("n", call, "web_fetch", map[string]any{"url": u})
		if d.Decision != "ask" || d.Request == nil {
			t.Fatalf("%s: %+v, want ask", u, d)
		}
		s.respond(d.Request.RequestID, "allow_once")
		wantDecision(t, u+" after the allow", s.decide("n", call, "web_fetch", map[string]any{"url": u}), "allow", "user_approved", "")
	}
	// A turn whose policy allows the call (a restricted network that allows
	// the domain) looks it up at once.
	s.startTurn("f", "ws", "full_access", root)
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "r", "workspace_id": "ws", "thread_id": "th", "parent_turn_id": "f",
		"task_cap": map[string]any{"network": map[string]any{"mode": "restricted", "allowed_domains": []string{"**.example.org"}}}}, http.StatusCreated, nil)
	wantDecision(t, "allowed, mixed.example.org", s.decide("r", "c1", "web_fetch", map[string]any{"url": "https://mixed.example.org/"}), "deny", "sandbox_denied", "private_address")
	wantDecision(t, "allowed, public.example.org (control)", s.decide("r", "c2", "web_fetch", map[string]any{"url": "https://public.example.org/"}), "allow", "full_access", "")
}

// TestCapDisabledNetworkIsNetworkDisabled: a child of a full_access parent
// whose cap disables the network is refused network_disabled for web_fetch,
// never allowed; a supervised turn's "disabled until granted" still asks.
func TestCapDisabledNetworkIsNetworkDisabled(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("parent", "ws", "full_access", root)
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "child", "workspace_id": "ws", "thread_id": "th", "parent_turn_id": "parent",
		"task_cap": map[string]any{"network": map[string]any{"mode": "disabled"}}}, http.StatusCreated, nil)
	wantDecision(t, "capped child web_fetch", s.decide("child", "c1", "web_fetch", map[string]any{"url": "https://example.com/"}), "deny", "sandbox_denied", "network_disabled")
	wantDecision(t, "full_access parent web_fetch (control)", s.decide("parent", "c1", "web_fetch", map[string]any{"url": "https://example.com/"}), "allow", "full_access", "")
	s.startTurn("sup", "ws", "supervised", root)
	if d := s.decide("sup", "c1", "web_fetch", map[string]any{"url": "https://example.com/"}); d.Decision != "ask" {
		t.Errorf("supervised web_fetch: %+v", d)
	}
}

// TestCapPolicyOnly: a policy-only cap equal to the parent's table is
// accepted; a widening is refused with 400 naming the field, also against
// the cap's own mode.
func TestCapPolicyOnly(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("sp", "ws", "supervised", root)
	table := map[string]any{"default_behavior": "ask", "file_read": "allow", "file_write": "ask", "shell_command": "ask", "network": "ask",
		"mcp_read": "allow", "mcp_write_or_unknown": "ask", "dynamic_skill_tool": "ask", "computer_use": "ask", "task_subagent": "ask"}
	var child turnAnswer
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "c-eq", "workspace_id": "ws", "thread_id": "th", "parent_turn_id": "sp",
		"task_cap": map[string]any{"policy": table}}, http.StatusCreated, &child)
	if child.Turn.Profile.Mode != "supervised" {
		t.Errorf("child of a policy-only cap: %+v", child.Turn.Profile)
	}
	wider := map[string]any{}
	for k, v := range table {
		wider[k] = v
	}
	wider["shell_command"] = "allow"
	st, body := s.Request("POST", "/v1/turns", map[string]any{"turn_id": "c-wide", "workspace_id": "ws", "thread_id": "th", "parent_turn_id": "sp",
		"task_cap": map[string]any{"policy": wider}})
	if e := wantError(t, st, body, http.StatusBadRequest, "cap_exceeds_parent"); !strings.Contains(e.Message, "task_cap.policy.shell_command") {
		t.Errorf("widening policy-only cap: %+v", e)
	}
	s.startTurn("fa", "ws", "full_access", root)
	st, body = s.Request("POST", "/v1/turns", map[string]any{"turn_id": "c-mode", "workspace_id": "ws", "thread_id": "th", "parent_turn_id": "fa",
		"task_cap": map[string]any{"mode": "supervised", "policy": wider}})
	if e := wantError(t, st, body, http.StatusBadRequest, "invalid_field"); e.Details["field"] != "task_cap.policy.shell_command" {
		t.Errorf("mode supervised + shell_command allow: %+v", e)
	}
}

// TestRelativeProjectRoot: a relative project root resolves from the turn's
// cwd; only what cannot be resolved is refused.
func TestRelativeProjectRoot(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	if err := os.MkdirAll(root+"/rel-root", 0o755); err != nil {
		t.Fatal(err)
	}
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "rel", "workspace_id": "ws", "thread_id": "th", "workspace_root": root + "/elsewhere", "cwd": root,
		"project_roots": []string{"rel-root"}, "permission_profile": map[string]any{"mode": "auto_accept_edits"}}, http.StatusCreated, nil)
	wantDecision(t, "write under the relative root", s.decide("rel", "c1", "apply_patch", patchOf("Add", root+"/rel-root/x.txt")), "allow", "policy_allows_action", "")
	wantDecision(t, "write beside it (control)", s.decide("rel", "c2", "apply_patch", patchOf("Add", root+"/other/x.txt")), "deny", "sandbox_denied", "outside_allowed_roots")
	st, body := s.Request("POST", "/v1/turns", map[string]any{"turn_id": "rel2", "workspace_id": "ws", "thread_id": "th", "workspace_root": "ws-rel", "cwd": "cwd-rel"})
	if e := wantError(t, st, body, http.StatusBadRequest, "invalid_field"); e.Details["field"] != "cwd" {
		t.Errorf("unresolvable cwd: %+v", e)
	}
}

// TestDownloadWithoutDestination: download_url without a destination writes
// under the cwd, named by destination_hint or the URL, with the implicit
// options in the scope; a bad hint is a 400.
func TestDownloadWithoutDestination(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("dl", "ws", "supervised", root)
	d := s.decide("dl", "c1", "download_url", map[string]any{"url": "https://example.com/files/a.tgz"})
	if d.Decision != "ask" || d.Request == nil || !strings.Contains(d.Request.Summary, root+"/a.tgz") {
		t.Fatalf("implicit destination: %+v %+v", d, d.Request)
	}
	d2 := s.decide("dl", "c2", "download_url", map[string]any{"url": "https://example.com/files/a.tgz", "destination_hint": "b.tgz"})
	if d2.Decision != "ask" || !strings.Contains(d2.Request.Summary, root+"/b.tgz") || d2.ScopeHash == d.ScopeHash {
		t.Fatalf("destination_hint: %+v", d2.Request)
	}
	d3 := s.decide("dl", "c3", "download_url", map[string]any{"url": "https://example.com/files/a.tgz", "overwrite": true})
	if d3.ScopeHash == d.ScopeHash {
		t.Fatal("overwrite: true has the scope of overwrite: false")
	}
	st, body := s.Request("POST", "/v1/turns/dl/decisions", map[string]any{"tool_call_id": "c4", "tool_name": "download_url",
		"arguments": map[string]any{"url": "https://example.com/x", "destination_hint": "../x"}})
	if e := wantError(t, st, body, http.StatusBadRequest, "invalid_field"); e.Details["field"] != "arguments.destination_hint" {
		t.Errorf("bad hint: %+v", e)
	}
	_, raw := s.events("dl")
	for _, want := range []string{`"destination_hint"`, `"follow_redirects"`, `"create_dirs"`, `"overwrite"`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the recorded scope lacks %s", want)
		}
	}
}

// TestDomainRulePatterns: "**.d" allows the apex and every subdomain,
// "*.d" subdomains only, decided through a child's restricted network.
func TestDomainRulePatterns(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("dp", "ws", "full_access", root)
	for _, c := range []struct {
		rule  string
		hosts map[string]string // host -> refusal ("" = allowed)
	}{
		{"**.example.com", map[string]string{"example.com": "", "a.example.com": "", "b.a.example.com": "", "badexample.com": "host_not_allowed"}},
		{"*.example.com", map[string]string{"example.com": "host_not_allowed", "a.example.com": "", "badexample.com": "host_not_allowed"}},
		{"=example.com", map[string]string{"example.com": "", "a.example.com": "host_not_allowed"}},
	} {
		id := "dp-" + strings.NewReplacer("*", "s", "=", "e", ".", "-").Replace(c.rule)
		s.JSON("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th", "parent_turn_id": "dp",
			"task_cap": map[string]any{"network": map[string]any{"mode": "restricted", "allowed_domains": []string{c.rule}}}}, http.StatusCreated, nil)
		for host, refusal := range c.hosts {
			d := s.decide(id, "c-"+host, "web_fetch", map[string]any{"url": "https://" + host + "/"})
			if (refusal == "" && d.Decision != "allow") || (refusal != "" && d.Refusal != refusal) {
				t.Errorf("%s on %s: %s/%s (%s), want refusal %q", c.rule, host, d.Decision, d.Refusal, d.Message, refusal)
			}
		}
	}
}
