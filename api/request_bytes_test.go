package api_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestApproverSeesTheStoredRequest: the approval request an approver is
// shown — in the decision's answer, by GET /v1/approvals/{id}, in the
// pending list, on the event stream, and in the answer to a retried call
// after a restart (the state then comes from the store, through the fast
// decoder) — is the request stored in the permission.approval_requested
// event, byte for byte. The REST answers are written without HTML escaping
// (api/errors.go) and the stored bytes with it, so a REST body is compared
// after json.HTMLEscape, the one difference between the two encoders; the
// event stream uses the stored encoder and is compared as it is. The
// request's text holds what an encoder treats specially (&, <, >, a
// non-ASCII letter, U+2028), and a second request has no details at all
// (an empty list, not null).
func TestApproverSeesTheStoredRequest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.db")
	s := startInProcessOn(t, path)
	root := t.TempDir()
	if st, b := s.do("POST", "/v1/turns", map[string]any{"turn_id": "t1", "workspace_id": "ws", "thread_id": "th",
		"permission_profile": map[string]string{"mode": "supervised"}, "workspace_root": root}); st != http.StatusCreated {
		t.Fatalf("start: %d %s", st, b)
	}
	sse := s.subscribe(t)
	calls := []struct{ id, tool, args string }{
		{"c1", "exec_command", `{"cmd":"make test && echo \"<café \u2028 done>\" > out.txt"}`},
		{"c2", "mystery_tool", `{}`},
	}
	type answer struct {
		Decision string          `json:"decision"`
		Request  json.RawMessage `json:"request"`
	}
	decide := func(s *inProcess, id, tool, args string) answer {
		t.Helper()
		st, b := s.do("POST", "/v1/turns/t1/decisions", map[string]any{"tool_call_id": id, "tool_name": tool, "arguments": json.RawMessage(args)})
		var a answer
		if st != http.StatusOK || json.Unmarshal(b, &a) != nil || a.Decision != "ask" || len(a.Request) == 0 {
			t.Fatalf("decide %s: %d %s", id, st, b)
		}
		return a
	}
	first := map[string]json.RawMessage{}
	for _, c := range calls {
		first[c.id] = decide(s, c.id, c.tool, c.args).Request
	}
	stored := storedRequests(t, s)
	if len(stored) != len(calls) {
		t.Fatalf("%d approval_requested events, want %d", len(stored), len(calls))
	}
	streamed := map[string]json.RawMessage{}
	for len(streamed) < len(calls) {
		id, req := sse.nextRequest(t)
		streamed[id] = req
	}
	for _, c := range calls {
		want, ok := stored[c.id]
		if !ok {
			t.Fatalf("no stored request for %s", c.id)
		}
		id := requestID(t, want)
		same(t, c.id+": the decision's answer", want, htmlEscaped(first[c.id]))
		same(t, c.id+": the event stream", want, streamed[c.id])
		st, b := s.do("GET", "/v1/approvals/"+id, nil)
		var one struct {
			Request json.RawMessage `json:"request"`
		}
		if st != http.StatusOK || json.Unmarshal(b, &one) != nil {
			t.Fatalf("get %s: %d %s", id, st, b)
		}
		same(t, c.id+": GET /v1/approvals/{id}", want, htmlEscaped(one.Request))
	}
	st, b := s.do("GET", "/v1/approvals?status=pending&turn_id=t1", nil)
	var list struct {
		Approvals []struct {
			ToolCallID string          `json:"tool_call_id"`
			Request    json.RawMessage `json:"request"`
		} `json:"approvals"`
	}
	if st != http.StatusOK || json.Unmarshal(b, &list) != nil || len(list.Approvals) != len(calls) {
		t.Fatalf("pending list: %d %s", st, b)
	}
	for _, a := range list.Approvals {
		same(t, a.ToolCallID+": the pending list", stored[a.ToolCallID], htmlEscaped(a.Request))
	}
	// The texts did hold what the encoders treat differently, and the
	// second request's details are an empty list: the comparisons above
	// are not of plain ASCII only.
	if c1 := string(stored["c1"]); !strings.Contains(c1, `\u0026\u0026`) || !strings.Contains(c1, `\u003c`) || !strings.Contains(c1, `\u2028`) || !strings.Contains(c1, "café") {
		t.Fatalf("the stored request does not hold the special characters: %s", c1)
	}
	if !bytes.Contains(stored["c2"], []byte(`"details":[]`)) {
		t.Fatalf("the second request has details, or null: %s", stored["c2"])
	}
	if bytes.Equal(htmlEscaped(first["c1"]), first["c1"]) {
		t.Fatal("control: the REST answer was HTML-escaped already, so the escaping above proves nothing")
	}

	// After a restart the engine folds the turn from the store; a retried
	// call answers with the request it kept, the same bytes again.
	s.stop()
	s = startInProcessOn(t, path)
	for _, c := range calls {
		same(t, c.id+": a retry after a restart", stored[c.id], htmlEscaped(decide(s, c.id, c.tool, c.args).Request))
	}
}

// storedRequests returns the request of each approval_requested event of
// turn t1, as stored, by tool call id.
func storedRequests(t *testing.T, s *inProcess) map[string]json.RawMessage {
	t.Helper()
	st, b := s.do("GET", "/v1/turns/t1/events", nil)
	var hist struct {
		Events []struct {
			Type string          `json:"type"`
			Data json.RawMessage `json:"data"`
		} `json:"events"`
	}
	if st != http.StatusOK || json.Unmarshal(b, &hist) != nil {
		t.Fatalf("events: %d %s", st, b)
	}
	out := map[string]json.RawMessage{}
	for _, e := range hist.Events {
		if e.Type != "permission.approval_requested" {
			continue
		}
		var p struct {
			ToolCallID string          `json:"tool_call_id"`
			Request    json.RawMessage `json:"request"`
		}
		if err := json.Unmarshal(e.Data, &p); err != nil {
			t.Fatal(err)
		}
		out[p.ToolCallID] = p.Request
	}
	return out
}

func requestID(t *testing.T, req json.RawMessage) string {
	t.Helper()
	var r struct {
		RequestID string `json:"request_id"`
	}
	if err := json.Unmarshal(req, &r); err != nil || r.RequestID == "" {
		t.Fatalf("request without an id: %s", req)
	}
	return r.RequestID
}

// htmlEscaped is b as the stored encoder (json.Marshal) writes it.
func htmlEscaped(b []byte) []byte {
	var out bytes.Buffer
	json.HTMLEscape(&out, b)
	return out.Bytes()
}

func same(t *testing.T, what string, want, got []byte) {
	t.Helper()
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from the stored request\nstored %s\nshown  %s", what, want, got)
	}
}

// sseStream reads the server's event stream from its start.
type sseStream struct {
	msgs chan [2]string // event name, data
}

func (s *inProcess) subscribe(t *testing.T) *sseStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", s.url+"/v1/events?from=start", nil)
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("events: %d", resp.StatusCode)
	}
	out := &sseStream{msgs: make(chan [2]string, 64)}
	go func() {
		defer resp.Body.Close()
		defer close(out.msgs)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var event string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				select {
				case out.msgs <- [2]string{event, strings.TrimPrefix(line, "data: ")}:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out
}

// nextRequest waits for the next request/opened notification and returns
// its tool call id and its request as sent.
func (s *sseStream) nextRequest(t *testing.T) (string, json.RawMessage) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case m, ok := <-s.msgs:
			if !ok {
				t.Fatal("the event stream ended")
			}
			if m[0] != "turn/permission/request/opened" {
				continue
			}
			var n struct {
				Params struct {
					ToolCallID string          `json:"tool_call_id"`
					Request    json.RawMessage `json:"request"`
				} `json:"params"`
			}
			if err := json.Unmarshal([]byte(m[1]), &n); err != nil {
				t.Fatal(err)
			}
			return n.Params.ToolCallID, n.Params.Request
		case <-deadline:
			t.Fatal("no request/opened notification within 10s")
		}
	}
}
