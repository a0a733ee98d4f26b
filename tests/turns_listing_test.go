package tests

import (
	"encoding/json"
	"net/http"
	"testing"
)

// TestTurnListingLimitIsAPage: GET /v1/turns?limit=0 listed every turn ever
// run in one answer (0 meant no limit), so one request could cost every
// old turn read from the archive; it is a 400 now, and the bounds answer.
func TestTurnListingLimitIsAPage(t *testing.T) {
	t.Parallel()
	root := workspace(t)
	s := StartServer(t, "", "--recent-turns", "1")
	for _, id := range []string{"l1", "l2", "l3"} {
		s.startTurn(id, "ws", "auto_accept_edits", root)
		s.JSON("POST", "/v1/turns/"+id+"/complete", nil, http.StatusOK, nil)
	}
	for _, q := range []string{"0", "-1", "1001", "x"} {
		if status, body := s.Request("GET", "/v1/turns?limit="+q, nil); status != http.StatusBadRequest {
			t.Errorf("limit=%s: %d %s, want 400", q, status, body)
		}
	}
	for q, want := range map[string]int{"?limit=1": 1, "?limit=1000": 3, "": 3} {
		var list struct {
			Turns []json.RawMessage `json:"turns"`
		}
		s.JSON("GET", "/v1/turns"+q, nil, http.StatusOK, &list)
		if len(list.Turns) != want {
			t.Errorf("control: /v1/turns%s lists %d turns, want %d", q, len(list.Turns), want)
		}
	}
}
