package tests

import (
	"net/http"
	"testing"
)

// TestReadYourWrites checks that a turn read right after a command's answer
// shows the command when the read passes a position that covers it (the
// harness passes as ?after= the later of the answer's and the turn's last
// in the store, as a client that reads its writes does). Commands
// do not wait for the read models: without after= a read may not show them
// yet (api: TestCommandsAnswerWithoutTheReadModels).
func TestReadYourWrites(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("ryw", "ws", "full_access", root)
	stale := map[string]int{}
	for i := range 150 {
		d := s.decide("ryw", "c"+str(i), "task_list", nil)
		if v := s.turn("ryw").Turn.Version; v != d.Version {
			stale["decision (allow)"]++
		}
		_, x := s.exec("ryw", "", map[string]any{"tool_call_id": "x" + str(i), "argv": []string{"true"}})
		if v := s.turn("ryw").Turn.Version; v != x.Version {
			stale["exec (allow)"]++
		}
	}
	// Start, ask, respond, end.
	s.startTurn("ryw2", "ws", "supervised", root)
	for i := range 20 {
		ask := s.decide("ryw2", "a"+str(i), "exec_command", map[string]any{"cmd": "ls " + str(i)})
		if tr := s.turn("ryw2"); tr.Turn.Version != ask.Version || tr.Turn.PendingApprovals != 1 {
			stale["decision (ask)"]++
		}
		s.respond(ask.Request.RequestID, "deny")
		if tr := s.turn("ryw2"); tr.Turn.Version != ask.Version+1 || tr.Turn.PendingApprovals != 0 {
			stale["respond"]++
		}
	}
	s.JSON("POST", "/v1/turns/ryw2/complete", nil, http.StatusOK, nil)
	if tr := s.turn("ryw2"); tr.Turn.Status != "completed" {
		stale["complete"]++
	}
	if len(stale) > 0 {
		t.Fatalf("GET /v1/turns/{id}?after=<the command's position> showed the turn before the command (the position does not cover the command's events, or after= did not wait for it); stale reads out of 150 each: %v", stale)
	}
}
