package tests

import (
	"net/http"
	"testing"
)

// TestAttack90_ConfirmClearsGrants (ninetieth review, low: a false deny the
// eighty-seventh review's fix introduced). decideChange now records a
// change to the snapshot a turn already has when its principal may widen
// and did not make the last change (confirms), so that a Claude Code
// session carries an admin's narrowing. The event it records is a full
// profile_changed: the turn's allow_for_turn grants are cleared (evolve's
// ProfileChanged), the snapshot version moves (an allowed call that has
// not started is judged again without them: revoked), and open requests
// whose file rules cannot be judged on the record are cancelled. An admin
// who sets the mode a turn already has (the console's mode picker applied
// again, a script that pins every turn to supervised) changes nothing of
// the turn's permissions, yet the person's allow_for_turn answers are gone
// and the agent's next granted call asks them again. Before the fix it
// was a replay.
//
// Fix: for an equal snapshot, record who changed it (a marker event, or
// a ProfileChanged flagged as a confirmation that evolve applies to
// ProfileChangedBy/CarriedProfile only), without clearing grants, moving
// the version or resolving requests.
//
// Control: the grant allows the same command again before the admin's
// set (grant).
func TestAttack90_ConfirmClearsGrants(t *testing.T) {
	s := StartServer(t, "")
	root := workspace(t)
	setMode := func(turnID, mode string) {
		t.Helper()
		st, b := s.Request("POST", "/v1/turns/"+turnID+"/permissions", map[string]any{"permission_profile": map[string]any{"mode": mode}})
		if st != http.StatusOK {
			t.Fatalf("%s to %s: %d %s", turnID, mode, st, b)
		}
	}
	grant := func(turnID string) {
		t.Helper()
		rm := s.decide(turnID, "rm-1", "exec_command", map[string]any{"cmd": "rm -rf build"})
		if rm.Request == nil {
			t.Fatalf("supervised rm -rf build: %+v, want ask", rm)
		}
		s.respond(rm.Request.RequestID, "allow_for_turn")
		if d := s.decide(turnID, "rm-2", "exec_command", map[string]any{"cmd": "rm -rf build"}); d.Decision != "allow" || !d.Cached {
			t.Fatalf("control: the granted command again: %+v, want allow cached", d)
		}
	}

	// The admin sets the mode the turn already has.
	s.startTurn("cg2", "ws", "supervised", root)
	grant("cg2")
	setMode("cg2", "supervised")
	if m := s.turn("cg2").Turn.Profile.Mode; m != "supervised" {
		t.Fatalf("the turn is in %s", m)
	}
	if d := s.decide("cg2", "rm-3", "exec_command", map[string]any{"cmd": "rm -rf build"}); d.Decision != "allow" {
		t.Errorf("the admin set the mode the turn already had (supervised), which changes none of its permissions, and the person's allow_for_turn grant is gone: the granted command again is %s (%s), want allow", d.Decision, d.Reason)
	}
}
