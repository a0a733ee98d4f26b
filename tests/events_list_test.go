package tests

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestListThenSubscribeFromItsPosition follows the documented pattern: a
// client that connects late lists the pending approvals, then subscribes
// from the list's position. The request opened before the list is in the
// list and not replayed; the one opened between the list and the
// subscription arrives on the stream.
func TestListThenSubscribeFromItsPosition(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	s.startTurn("late", "ws", "supervised", workspace(t))
	before := s.decide("late", "c1", "exec_command", map[string]any{"cmd": "make one"}).Request.RequestID
	var list struct {
		Approvals []approvalView `json:"approvals"`
		Position  string         `json:"position"`
	}
	s.JSON("GET", "/v1/approvals?status=pending", nil, 200, &list)
	if len(list.Approvals) != 1 || list.Approvals[0].Request.RequestID != before || list.Position == "" {
		t.Fatalf("list: %+v", list)
	}
	between := s.decide("late", "c2", "exec_command", map[string]any{"cmd": "make two"}).Request.RequestID
	st := s.subscribe("", list.Position)
	e := st.NextOf("turn/permission/request/opened")
	req, _ := e.Params["request"].(map[string]any)
	if req["request_id"] != between {
		t.Fatalf("the first request on the stream is %v, want %s (opened after the list); %s was listed", req["request_id"], between, before)
	}
}

// TestImpossibleLastEventIDIsAnErrorEvent subscribes with a Last-Event-ID
// past the end of the log: the stream answers with one error event naming
// it and ends, instead of waiting silently. The control: the list's
// position, the end of the log, opens a normal stream.
func TestImpossibleLastEventIDIsAnErrorEvent(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	s.startTurn("far", "ws", "supervised", workspace(t))
	req, _ := http.NewRequest("GET", s.URL+"/v1/events", nil)
	req.Header.Set("Authorization", "Bearer "+s.Token)
	req.Header.Set("Last-Event-ID", "999999")
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body) // the stream ends: no hang
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || !strings.HasPrefix(string(body), "event: error\ndata: ") {
		t.Fatalf("Last-Event-ID 999999: %d %q", resp.StatusCode, body)
	}
	var e struct {
		Error apiError `json:"error"`
	}
	data := strings.TrimSpace(strings.TrimPrefix(string(body), "event: error\ndata: "))
	if json.Unmarshal([]byte(data), &e) != nil || e.Error.Code != "invalid_last_event_id" || !strings.Contains(e.Error.Message, "999999") {
		t.Fatalf("error event: %s", body)
	}
	var list struct {
		Position string `json:"position"`
	}
	s.JSON("GET", "/v1/approvals", nil, 200, &list)
	st := s.subscribe("", list.Position)
	s.decide("far", "c1", "exec_command", map[string]any{"cmd": "make one"})
	if e := st.NextOf("turn/permission/request/opened"); e.Params["turn_id"] != "far" {
		t.Fatalf("from the list's position: %+v", e)
	}
}
