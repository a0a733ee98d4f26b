package tests

import (
	"net/http"
	"strings"
	"testing"
)

// TestAttack92_ConfirmTimelineSaysCleared (ninety-second review, low: a
// read model the ninetieth review's fix left behind). An admin's set of
// the mode a turn already has is now a profile_changed marked confirmed,
// which clears no grant (evolve, Summary.Apply and the JSON-RPC
// notification know the flag). The projector does not: its timeline row
// for any ProfileChanged reads "Permissions changed to supervised —
// approvals granted for the turn were cleared" (projections/projector.go
// fold), and the audit adds a profile_changed row (and, for a degraded
// sandbox, its degraded rows again). The person reading the turn's
// timeline is told their allow_for_turn answers are gone, while the
// agent's granted command still runs without asking: what the console
// shows of the turn's permissions is not what is in force.
//
// Fix: in projector.fold, for ev.Confirmed write a row saying who set the
// permissions the turn already had ("Permissions confirmed as X by Y",
// nothing cleared), and no repeated sandbox rows.
//
// Control: the grant still allows the command after the admin's set (the
// ninetieth review's fix).
func TestAttack92_ConfirmTimelineSaysCleared(t *testing.T) {
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("ct", "ws", "supervised", root)
	rm := s.decide("ct", "rm-1", "exec_command", map[string]any{"cmd": "rm -rf build"})
	if rm.Request == nil {
		t.Fatalf("supervised rm -rf build: %+v, want ask", rm)
	}
	s.respond(rm.Request.RequestID, "allow_for_turn")
	st, b := s.Request("POST", "/v1/turns/ct/permissions", map[string]any{"permission_profile": map[string]any{"mode": "supervised"}})
	if st != http.StatusOK {
		t.Fatalf("set supervised: %d %s", st, b)
	}
	if d := s.decide("ct", "rm-2", "exec_command", map[string]any{"cmd": "rm -rf build"}); d.Decision != "allow" {
		t.Fatalf("control: the grant after the admin's confirm: %+v, want allow", d)
	}
	st, tl := s.Request("GET", "/v1/turns/ct/timeline", nil)
	if st != http.StatusOK {
		t.Fatalf("timeline: %d %s", st, tl)
	}
	if strings.Contains(string(tl), "approvals granted for the turn were cleared") {
		t.Errorf("the admin set the mode the turn already had; the grant stands (the command ran again unasked), yet the timeline tells the person it was cleared: %s", tl)
	}
}
