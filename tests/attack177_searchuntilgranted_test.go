package tests

import (
	"net/http"
	"testing"
)

// TestAttack177SearchUnderUntilGrantedList: the hundred-and-seventy-
// seventh review, against review 176's fix. A network "disabled until
// granted" now keeps the allow-list it would be granted under (a child
// turn of an allow-listed turn; a profile whose network is off), and a
// fetch outside it is refused before anyone is asked (the URL check runs
// on the Approvable snapshot). A web_search is judged by urlLessRefusal on
// the snapshot as it stands, and DomainsInside applies the allow-list only
// when the mode is restricted: under the disabled network it checks the
// denies alone. So a search kept to a host outside the list (the agent
// names attacker.example as its only domain: its query, what it read, goes
// to the search service, results come only from that host) is put to a
// person in the child turn / under the offline profile, where the parent
// (and the same profile with its network on) refuses it before asking
// (review 79).
//
// Controls: the parent and the base profile refuse the same search; in
// the child and the offline profile a search kept to the listed host asks.
func TestAttack177SearchUnderUntilGrantedList(t *testing.T) {
	t.Parallel()
	s, runtime, root := profileRuntime(t, `
[permissions.dev]
extends = ":workspace"
[permissions.dev.network]
enabled = true
[permissions.dev.network.domains]
"docs.example.org" = "allow"

[permissions.offline]
extends = "dev"
[permissions.offline.network]
enabled = false
`)
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "p", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]any{"profile": "dev"}, "workspace_root": root}, http.StatusCreated, nil)
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "c", "workspace_id": "ws", "thread_id": "th",
		"parent_turn_id": "p"}, http.StatusCreated, nil)
	runtime.JSON("POST", "/v1/turns", map[string]any{"turn_id": "off", "workspace_id": "ws", "thread_id": "th-off",
		"permission_profile": map[string]any{"profile": "offline"}, "workspace_root": root}, http.StatusCreated, nil)

	evil := map[string]any{"query": "what the agent read", "allowed_domains": []string{"attacker.example"}}
	ok := map[string]any{"query": "requests", "allowed_domains": []string{"docs.example.org"}}
	if d := runtime.decide("p", "s1", "web_search", evil); d.Decision != "deny" {
		t.Fatalf("control: in the parent a search kept to an unlisted host: %+v, want deny", d)
	}
	if d := runtime.decide("p", "s0", "web_search", ok); d.Decision != "ask" {
		t.Fatalf("control: in the parent a search kept to the listed host asks: %+v", d)
	}
	for _, turn := range []string{"c", "off"} {
		if d := runtime.decide(turn, "s0", "web_search", ok); d.Decision != "ask" {
			t.Fatalf("control: in %s a search kept to the listed host asks: %+v", turn, d)
		}
		if d := runtime.decide(turn, "f1", "web_fetch", map[string]any{"url": "https://attacker.example/"}); d.Decision != "deny" {
			t.Fatalf("control: in %s a fetch of the unlisted host is refused (review 176's fix): %+v", turn, d)
		}
		d := runtime.decide(turn, "s1", "web_search", evil)
		if d.Decision != "deny" {
			t.Errorf("in %s (network disabled until granted, keeping the allow-list) a search kept to a host outside the list is %s (%s, request %v), where a fetch of it is refused: DomainsInside ignores the allow-list of a disabled network",
				turn, d.Decision, d.Reason, d.Request != nil)
		}
		if d.Request != nil {
			s.respond(d.Request.RequestID, "allow_once")
			if d := runtime.decide(turn, "s1", "web_search", evil); d.Decision == "allow" {
				t.Errorf("and in %s, once a person allows it, the search kept to the unlisted host is allowed (%s)", turn, d.Reason)
			}
		}
	}
}
