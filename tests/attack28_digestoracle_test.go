package tests

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// The twenty-eighth attack review: roles, credentials, who may answer an
// approval, and where the gateway keeps its own secrets.

// TestAttack28DigestKeyOracleRecoversRedactedSecret: the twenty-fifth
// review's fix keys every digest of what turnstile hides (a redacted
// password in a command, an exec's environment values and stdin, a URL's
// query) with the store's digest key, so that "a digest still binds a
// grant to the exact call, and tells a reader nothing" (domain/digest.go).
// But the key is one per store, and every runtime credential can have the
// server compute a keyed digest of any input it chooses: a decision's
// answer carries the scope_hash of the call it decided, computed with the
// same key. So the agent (a runtime credential of ws1, not the one whose
// turn holds the secret) reads another credential's pending request's
// scope_hash on GET /v1/approvals, starts a full_access turn of its own
// over the same workspace (nothing asks, no request opens, nobody is
// shown anything), and decides the same command with one guess after
// another in place of the redacted value: the guess whose scope_hash
// equals the victim's is the secret. It is the same dictionary attack the
// twenty-fifth review closed, online instead of offline, at the server's
// decision rate (thousands a minute; the agent ends and starts its own
// turns to stay under its quotas).
//
// Why it matters: a secret a person typed in a command (a database
// password, a PIN, a token of known shape with a few unknown characters)
// is recovered by the agent from a turn it never saw in clear; the
// redaction, and the keying that was to make its digests opaque, give it
// nothing.
//
// Fixed would look like: digests that cannot be reproduced across turns
// (a key per turn, derived from the store's key and the turn id, so a
// grant still binds the exact call within its turn while the agent's own
// turn yields other digests), and no scope_hash of another credential's
// call whose scope holds a redacted value for a credential that can decide
// in other turns, or some equivalent that gives the reader no oracle.
//
// Severity: medium (needs a guessable secret; the victim's turn and the
// agent's share a workspace, as the twenty-fifth review's did).
func TestAttack28DigestKeyOracleRecoversRedactedSecret(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	owner := roAs(s, roCreate(t, s, "a28-owner", "runtime", "ws1"))
	agent := roAs(s, roCreate(t, s, "a28-agent", "runtime", "ws1"))
	approver := roAs(s, roCreate(t, s, "a28-approver", "approver", "ws1"))
	root := workspace(t)

	// The person's turn: a command holding a password, shown redacted.
	owner.startTurn("a28-victim", "ws1", "supervised", root)
	victim := owner.decide("a28-victim", "c-psql", "exec_command", map[string]any{"cmd": "PGPASSWORD=summer2024 psql -h db"})
	if victim.Decision != "ask" || victim.Request == nil {
		t.Fatalf("the victim's decision: %+v, want ask with a request", victim)
	}

	// Control: nothing the approver or the agent is shown holds the
	// password; the approver lists the request.
	var pending struct {
		Approvals []approvalView `json:"approvals"`
	}
	approver.JSON("GET", "/v1/approvals?status=pending&turn_id=a28-victim", nil, http.StatusOK, &pending)
	if len(pending.Approvals) != 1 {
		t.Fatalf("the approver lists %d requests, want 1", len(pending.Approvals))
	}
	_, raw := agent.Do("GET", "/v1/approvals?status=pending&turn_id=a28-victim", nil)
	if strings.Contains(string(raw), "summer2024") {
		t.Fatalf("the request shows the password in clear: %s", raw)
	}

	// The agent reads the request's scope hash.
	var seen struct {
		Approvals []approvalView `json:"approvals"`
	}
	agent.JSON("GET", "/v1/approvals?status=pending&turn_id=a28-victim", nil, http.StatusOK, &seen)
	if len(seen.Approvals) != 1 || seen.Approvals[0].Request.ScopeHash == "" {
		t.Fatalf("the agent lists %+v, want the request with its scope_hash", seen.Approvals)
	}
	target := seen.Approvals[0].Request.ScopeHash

	// Its own turn, full_access over the same root: every decision is an
	// allow, answered with its keyed scope_hash.
	agent.startTurn("a28-oracle", "ws1", "full_access", root)
	var found []string
	for i, g := range a25Guesses {
		d := agent.decide("a28-oracle", fmt.Sprintf("g%d", i), "exec_command", map[string]any{"cmd": "PGPASSWORD=" + g + " psql -h db"})
		if d.ScopeHash == "" {
			t.Fatalf("guess %q: no scope_hash in the answer %+v", g, d)
		}
		if d.ScopeHash == target {
			found = append(found, g)
		}
	}
	// Control: a guess that is not the password never matches (the oracle
	// is exact, not a collision of every guess).
	if len(found) > 1 {
		t.Fatalf("several guesses match the victim's scope_hash: %v", found)
	}
	if len(found) == 1 {
		t.Errorf("the agent recovered the redacted password %q of another credential's request: its own turn's decisions, keyed with the same store-wide digest key, reproduce the request's scope_hash", found[0])
	}
}

// TestAttack28ToolCallReplayOracleInVictimsTurn: a variant of
// TestAttack28DigestKeyOracleRecoversRedactedSecret that leaves no trace and
// that a per-turn digest key would not close. A runtime credential may
// decide in any turn of its workspace, and a decision naming a tool call id
// the turn already decided is compared with it by scope hash: the same
// invocation is answered with the stored decision (200, replayed), another
// one is refused (409 tool_call_reused); either way nothing is appended. The
// agent reads, on GET /v1/approvals, another credential's pending request
// and its tool_call_id, and decides in that turn, under that id, the same
// command with one guess after another in place of the redacted password:
// the one guess answered 200 is the password. No event is recorded, no
// quota is charged (a known call is admitted past the byte quota), nobody
// sees anything.
//
// Why it matters: as in the digest-key oracle, a secret a person typed is
// recovered by the agent; here at the speed of the API, silently, in the
// person's own turn.
//
// Fixed would look like: a decision naming another credential's tool call
// id answered without comparing what it names (refused, e.g. 409 or 404
// whatever its arguments), or a comparison whose result another credential
// does not learn.
//
// Severity: medium.
func TestAttack28ToolCallReplayOracleInVictimsTurn(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	owner := roAs(s, roCreate(t, s, "a28r-owner", "runtime", "ws1"))
	agent := roAs(s, roCreate(t, s, "a28r-agent", "runtime", "ws1"))
	root := workspace(t)
	owner.startTurn("a28r-victim", "ws1", "supervised", root)
	victim := owner.decide("a28r-victim", "c-psql", "exec_command", map[string]any{"cmd": "PGPASSWORD=summer2024 psql -h db"})
	if victim.Decision != "ask" || victim.Request == nil {
		t.Fatalf("the victim's decision: %+v, want ask with a request", victim)
	}
	// Control: the owner asking again about its own call is answered with
	// the stored decision (the runtime loop's retry).
	if again := owner.decide("a28r-victim", "c-psql", "exec_command", map[string]any{"cmd": "PGPASSWORD=summer2024 psql -h db"}); !again.Replayed || again.Decision != "ask" {
		t.Fatalf("the owner's retry: %+v, want the stored ask, replayed", again)
	}

	var seen struct {
		Approvals []approvalView `json:"approvals"`
	}
	agent.JSON("GET", "/v1/approvals?status=pending&turn_id=a28r-victim", nil, http.StatusOK, &seen)
	if len(seen.Approvals) != 1 || seen.Approvals[0].ToolCallID != "c-psql" || strings.Contains(seen.Approvals[0].Request.Summary, "summer2024") {
		t.Fatalf("the agent lists %+v, want the request (its tool_call_id, the password redacted)", seen.Approvals)
	}
	before := owner.turn("a28r-victim").Turn.Version

	var found []string
	for _, g := range a25Guesses {
		body := map[string]any{"tool_call_id": seen.Approvals[0].ToolCallID, "tool_name": "exec_command",
			"arguments": map[string]any{"cmd": "PGPASSWORD=" + g + " psql -h db"}}
		status, raw := agent.Do("POST", "/v1/turns/a28r-victim/decisions", body)
		switch status {
		case http.StatusOK:
			found = append(found, g)
		case http.StatusConflict:
			if !strings.Contains(string(raw), "tool_call_reused") {
				t.Fatalf("guess %q: 409 %s, want tool_call_reused", g, raw)
			}
		default:
			t.Fatalf("guess %q: %d %s", g, status, raw)
		}
	}
	if after := owner.turn("a28r-victim").Turn.Version; after != before {
		t.Logf("the guesses appended %d events to the victim's turn", after-before)
	}
	if len(found) > 1 {
		t.Fatalf("several guesses answered 200: %v", found)
	}
	if len(found) == 1 {
		t.Errorf("the agent recovered the redacted password %q of another credential's request: deciding under that request's tool_call_id, in its turn, answers 200 for the exact command and 409 tool_call_reused for any other, appending nothing", found[0])
	}
}
