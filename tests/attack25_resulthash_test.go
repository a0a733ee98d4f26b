package tests

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestToolResultDigestKeyed: the digest of a tool's result a PostToolUse
// hook reports (tool.completed's result_sha256, in the turn's raw events)
// is keyed: a Bash whose output is a password would otherwise be bound by
// the plain SHA-256 of its response, confirmed offline by anyone who reads
// the events (twenty-fifth review, what the hashes tell). Control: the
// event is there with a digest and the result's size.
func TestToolResultDigestKeyed(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	s := ccServer(t, ws, "full_access", nil)
	session := "sess-a25-result"
	s.hook(ccPayload(t, "user_prompt_submit", session, ws))
	s.hook(ccPayload(t, "pre_bash", session, ws))
	resp := map[string]any{"stdout": "hunter2\n", "stderr": "", "interrupted": false, "isImage": false}
	s.hook(ccEdit(t, ccPayload(t, "post_bash", session, ws), map[string]any{"tool_response": resp}))
	raw, _ := json.Marshal(resp)
	plain := a25Hash(string(raw))

	status, body := s.Request("GET", "/v1/turns/"+ccTurn(session, 1)+"/events", nil)
	if status != http.StatusOK {
		t.Fatalf("events: %d %s", status, body)
	}
	var out struct {
		Events []struct {
			Type string         `json:"type"`
			Data map[string]any `json:"data"`
		} `json:"events"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatal(err)
	}
	var digest string
	for _, e := range out.Events {
		if e.Type == "tool.completed" {
			digest, _ = e.Data["result_sha256"].(string)
			if n, _ := e.Data["result_bytes"].(float64); int(n) != len(raw) {
				t.Errorf("result_bytes %v, want %d", e.Data["result_bytes"], len(raw))
			}
		}
	}
	if len(digest) != 64 {
		t.Fatalf("no tool.completed with a result digest (control): %s", body)
	}
	if strings.Contains(string(body), plain) {
		t.Fatalf("the result's plain SHA-256 is in the events: a reader confirms the output hunter2 offline")
	}
}
