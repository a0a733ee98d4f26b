package tests

import (
	"fmt"
	"net/http"
	"testing"
)

// TestAttack30DigestOracleInVictimsTurn: the twenty-eighth review's fixes
// key a turn's digests with a key of its own (DigestKey.ForTurn) and refuse
// a decision naming another principal's tool call id (foreignCall). But a
// runtime credential may still decide in any turn of its workspace, under
// a tool call id of its own, and the answer carries the scope_hash of what
// it decided, computed with that turn's key, the one the victim's pending
// request's scope_hash (listed on GET /v1/approvals) was computed with.
// The agent decides, in the victim's turn, the victim's command with one
// guess after another in place of the redacted password, each under a new
// id: the guess whose answer's scope_hash equals the request's is the
// password. Each guess is a request of its own in that turn (asked in
// supervised mode), shown redacted, as the victim's is. Fixed would be no
// scope_hash of a call answered to a credential that can read another's
// (or the approvals list without scope hashes of other principals' calls),
// or a digest key per principal and turn. Severity: medium (the oracle the
// twenty-eighth review's digest fix was to close, in the one turn it did
// not change). Control: only the exact password matches.
func TestAttack30DigestOracleInVictimsTurn(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	owner := roAs(s, roCreate(t, s, "a30o-owner", "runtime", "ws1"))
	agent := roAs(s, roCreate(t, s, "a30o-agent", "runtime", "ws1"))
	root := workspace(t)
	owner.startTurn("a30o-victim", "ws1", "supervised", root)
	victim := owner.decide("a30o-victim", "c-psql", "exec_command", map[string]any{"cmd": "PGPASSWORD=summer2024 psql -h db"})
	if victim.Decision != "ask" || victim.Request == nil {
		t.Fatalf("the victim's decision: %+v, want ask with a request", victim)
	}
	var seen struct {
		Approvals []approvalView `json:"approvals"`
	}
	agent.JSON("GET", "/v1/approvals?status=pending&turn_id=a30o-victim", nil, http.StatusOK, &seen)
	if len(seen.Approvals) != 1 || seen.Approvals[0].Request.ScopeHash == "" {
		t.Fatalf("the agent lists %+v, want the request with its scope_hash", seen.Approvals)
	}
	target := seen.Approvals[0].Request.ScopeHash
	var found []string
	for i, g := range a25Guesses {
		d := agent.decide("a30o-victim", fmt.Sprintf("g%d", i), "exec_command", map[string]any{"cmd": "PGPASSWORD=" + g + " psql -h db"})
		if d.ScopeHash == target {
			found = append(found, g)
		}
	}
	if len(found) > 1 {
		t.Fatalf("control: several guesses match: %v", found)
	}
	if len(found) == 1 {
		t.Errorf("the agent recovered the redacted password %q of another credential's request: its own decisions in that turn are answered with scope hashes under the same turn key", found[0])
	}
}
