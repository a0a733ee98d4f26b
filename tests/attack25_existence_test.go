package tests

import (
	"net/http"
	"strings"
	"testing"
)

// TestAttack25OtherWorkspaceIdsConfirmedAndNamed: a credential limited to
// ws1 tells another workspace's turn or request from one that does not
// exist, and is told that workspace's name. A turn id the client chose
// (the README's t1, a ticket number, a branch name) or a request id (a
// UUIDv5 of the turn and tool call ids) of another workspace answers 403
// "may not … in workspace \"acme-merger-2027\"" with details.workspace_id,
// where a missing one answers 404: on GET /v1/turns/{id}, /timeline,
// /explain, GET /v1/approvals/{id}, POST …/respond, JSON-RPC turn/get and
// turn/items, and GET /v1/events?turn_id=. The agent holding the ws1
// runtime's credential enumerates the other tenants' turn ids and learns
// their workspaces' names. (Credentials already follow the rule: a revoke
// of a credential outside the caller's scope answers not found, "as the
// list does not show it".)
//
// Control: the credential reads its own turn; a missing turn and request
// are 404.
func TestAttack25OtherWorkspaceIdsConfirmedAndNamed(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	const secretWS = "acme-merger-2027"
	other := roAs(s, roCreate(t, s, "a25e-other", "runtime", secretWS))
	agent := roAs(s, roCreate(t, s, "a25e-agent", "runtime", "ws1"))
	approver := roAs(s, roCreate(t, s, "a25e-approver", "approver", "ws1"))
	root := workspace(t)
	other.startTurn("t1", secretWS, "supervised", root)
	d := other.decide("t1", "call-1", "exec_command", map[string]any{"cmd": []string{"make"}})
	if d.Request == nil {
		t.Fatalf("decision %+v, want a request", d)
	}
	agent.startTurn("mine", "ws1", "supervised", root)
	mine := agent.decide("mine", "call-1", "exec_command", map[string]any{"cmd": []string{"make"}})

	// Control: its own turn and request are readable; missing ones are 404.
	if st, body := agent.Request("GET", "/v1/turns/mine", nil); st != http.StatusOK {
		t.Fatalf("own turn: %d %s", st, body)
	}
	if st, body := agent.Request("GET", "/v1/approvals/"+mine.Request.RequestID, nil); st != http.StatusOK {
		t.Fatalf("own request: %d %s", st, body)
	}

	type probe struct {
		who                *Server
		what               string
		method, path       string
		body               any
		missPath           string
		rpcMethod          string
		rpcParams, rpcMiss map[string]any
	}
	missingReq := "00000000-0000-5000-8000-000000000000"
	probes := []probe{
		{who: agent, what: "GET /v1/turns/{id}", method: "GET", path: "/v1/turns/t1", missPath: "/v1/turns/t2"},
		{who: agent, what: "GET /v1/turns/{id}/timeline", method: "GET", path: "/v1/turns/t1/timeline", missPath: "/v1/turns/t2/timeline"},
		{who: agent, what: "GET /v1/turns/{id}/explain", method: "GET", path: "/v1/turns/t1/explain?path=/", missPath: "/v1/turns/t2/explain?path=/"},
		{who: agent, what: "GET /v1/approvals/{id}", method: "GET", path: "/v1/approvals/" + d.Request.RequestID, missPath: "/v1/approvals/" + missingReq},
		{who: approver, what: "POST /v1/approvals/{id}/respond", method: "POST", path: "/v1/approvals/" + d.Request.RequestID + "/respond",
			body: map[string]string{"resolution": "deny"}, missPath: "/v1/approvals/" + missingReq + "/respond"},
		{who: approver, what: "GET /v1/events?turn_id=", method: "GET", path: "/v1/events?turn_id=t1", missPath: "/v1/events?turn_id=t2"},
		{who: agent, what: "JSON-RPC turn/get", rpcMethod: "turn/get", rpcParams: map[string]any{"turn_id": "t1"}, rpcMiss: map[string]any{"turn_id": "t2"}},
		{who: agent, what: "JSON-RPC turn/items", rpcMethod: "turn/items", rpcParams: map[string]any{"turn_id": "t1"}, rpcMiss: map[string]any{"turn_id": "t2"}},
	}
	for _, p := range probes {
		var st, miss int
		var body, missBody string
		if p.rpcMethod != "" {
			_, e := roRPC(t, p.who, p.rpcMethod, p.rpcParams)
			_, m := roRPC(t, p.who, p.rpcMethod, p.rpcMiss)
			st, miss = int(asFloat(e["status"])), int(asFloat(m["status"]))
			body, missBody = str(e), str(m)
		} else {
			s1, b1 := p.who.Request(p.method, p.path, p.body)
			s2, b2 := p.who.Request(p.method, p.missPath, p.body)
			st, miss, body, missBody = s1, s2, string(b1), string(b2)
		}
		if miss != http.StatusNotFound {
			t.Fatalf("%s of a missing id: %d %s, want 404", p.what, miss, missBody)
		}
		if st != miss {
			t.Errorf("%s: another workspace's id answers %d where a missing one answers %d (the id exists): %s", p.what, st, miss, body)
		}
		if strings.Contains(body, secretWS) {
			t.Errorf("%s: the answer names the other workspace %q to a ws1 credential: %s", p.what, secretWS, body)
		}
	}
}

func asFloat(v any) float64 {
	f, _ := v.(float64)
	return f
}
