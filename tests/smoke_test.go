package tests

import (
	"net/http"
	"strings"
	"testing"
)

// TestSmoke starts the binary, checks auth and starts one turn.
func TestSmoke(t *testing.T) {
	s := StartServer(t, "")
	if status, _ := s.Request("GET", "/healthz", nil, "Authorization", ""); status != http.StatusOK {
		t.Fatalf("healthz %d", status)
	}
	req, _ := http.NewRequest("GET", s.URL+"/v1/approvals", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no token: %d", resp.StatusCode)
	}
	var turn struct {
		Turn struct {
			ID, Status string
		}
	}
	s.JSON("POST", "/v1/turns", map[string]any{"turn_id": "t1", "workspace_id": "w", "workspace_root": "/tmp"}, http.StatusCreated, &turn)
	if turn.Turn.ID != "t1" || turn.Turn.Status != "in_progress" {
		t.Fatalf("turn %+v", turn)
	}
	out, _, code := s.CLI("fsm")
	if code != 0 || !strings.Contains(out, "awaiting_approval") {
		t.Fatalf("fsm: %d %s", code, out)
	}
	if err := s.Stop(); err != nil {
		t.Fatalf("SIGTERM: %v\n%s", err, s.Output())
	}
}
