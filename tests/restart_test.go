package tests

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

// lsSecret is a command whose scope hides a value: its scope hash binds
// the value by the store's digest key, which a restart must keep for the
// grant to hold.
const lsSecret = "PGPASSWORD=summer2024 ls"

// TestRestartKeepsEverything stops the process with SIGTERM and starts it
// again on the same data: every turn, pending approval, grant and timeline
// is still there, and the raw history is byte for byte the same.
func TestRestartKeepsEverything(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)

	s.startTurn("granted", "ws-r", "auto_accept_edits", root)
	ask := s.decide("granted", "c1", "exec_command", map[string]any{"cmd": lsSecret})
	s.respond(ask.Request.RequestID, "allow_for_turn")
	if d := s.decide("granted", "c2", "exec_command", map[string]any{"cmd": lsSecret}); d.Reason != "cached_approval" {
		t.Fatalf("grant before the restart: %+v", d)
	}
	pend := s.decide("granted", "c3", "web_fetch", map[string]any{"url": "https://example.com/a"})
	s.startTurn("ended", "ws-r", "full_access", root)
	s.decide("ended", "c1", "exec_command", map[string]any{"cmd": "true"})
	s.JSON("POST", "/v1/turns/ended/interrupt", map[string]any{"reason": "stop"}, http.StatusOK, nil)
	s.startTurn("denied", "ws-other", "supervised", root)
	den := s.decide("denied", "c1", "skill__x", nil)
	s.respond(den.Request.RequestID, "deny")
	s.startTurn("changed", "ws-r", "full_access", root)
	s.JSON("POST", "/v1/turns/changed/permissions", map[string]any{"permission_profile": map[string]any{"mode": "supervised"}}, http.StatusOK, nil)

	turns := []string{"granted", "ended", "denied", "changed"}
	snapshot := func() map[string][]byte {
		out := map[string][]byte{}
		for _, id := range turns {
			for _, p := range []string{"", "/events", "/timeline", "/audit"} {
				status, body := s.Request("GET", "/v1/turns/"+id+p, nil)
				if status != http.StatusOK {
					t.Fatalf("GET %s%s: %d %s", id, p, status, body)
				}
				out[id+p] = body
			}
		}
		for _, p := range []string{"/v1/approvals?status=all", "/v1/approvals?status=pending", "/v1/turns", "/v1/approvals/" + pend.Request.RequestID} {
			status, body := s.Request("GET", p, nil)
			if status != http.StatusOK {
				t.Fatalf("GET %s: %d %s", p, status, body)
			}
			out[p] = body
		}
		return out
	}
	before := snapshot()
	s.Restart()
	after := snapshot()
	for k, b := range before {
		if !bytes.Equal(b, after[k]) {
			t.Errorf("GET %s differs after the restart:\nbefore %s\nafter  %s", k, b, after[k])
		}
	}

	var pending struct{ Approvals []approvalView }
	s.JSON("GET", "/v1/approvals?status=pending", nil, http.StatusOK, &pending)
	if len(pending.Approvals) != 1 || pending.Approvals[0].Request.RequestID != pend.Request.RequestID {
		t.Fatalf("pending after the restart: %+v", pending.Approvals)
	}
	// The grant still holds, the retried call still replays, and the
	// pending request can still be answered.
	if d := s.decide("granted", "c4", "exec_command", map[string]any{"cmd": lsSecret}); d.Decision != "allow" || d.Reason != "cached_approval" || !d.Cached || d.Replayed {
		t.Fatalf("grant after the restart: %+v", d)
	}
	// A resolved call answers what the runtime should do (issue 17 item 2).
	if d := s.decide("granted", "c1", "exec_command", map[string]any{"cmd": lsSecret}); !d.Replayed || d.Decision != "allow" || d.Reason != "user_approved" || d.Request.RequestID != ask.Request.RequestID {
		t.Fatalf("retried call after the restart: %+v", d)
	}
	if d := s.decide("granted", "c5", "exec_command", map[string]any{"cmd": "PGPASSWORD=winter2023 ls"}); d.Decision != "ask" {
		t.Fatalf("another scope after the restart: %+v", d)
	}
	s.respond(pend.Request.RequestID, "allow_once")
	if !s.respond(pend.Request.RequestID, "allow_once") {
		t.Fatal("repeated response after the restart is not replayed")
	}
	if tr := s.turn("changed"); tr.Turn.Profile.Mode != "supervised" || tr.SecuritySnapshot.Sandbox.Mode != "read_only" {
		t.Fatalf("changed profile after the restart: %+v", tr)
	}
	if tr := s.turn("ended"); tr.Turn.Status != "interrupted" {
		t.Fatalf("ended turn after the restart: %+v", tr.Turn)
	}
	if err := s.Stop(); err != nil {
		t.Fatalf("second SIGTERM: %v\n%s", err, s.Output())
	}
}

// TestSIGTERMAnswersLongPoll sends SIGTERM while a long poll waits: the
// poll is answered (pending, not cut), streams end, the process exits 0,
// and a restart on the same data still has the request.
func TestSIGTERMAnswersLongPoll(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("term", "ws", "supervised", root)
	ask := s.decide("term", "c1", "exec_command", map[string]any{"cmd": "make"})
	reqID := ask.Request.RequestID
	sse := s.subscribe("", "")

	type answer struct {
		status int
		body   []byte
		err    error
	}
	polled := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest("GET", s.URL+"/v1/approvals/"+reqID+"?wait=100s", nil)
		req.Header.Set("Authorization", "Bearer "+s.Token)
		resp, err := (&http.Client{Timeout: 2 * time.Minute}).Do(req)
		if err != nil {
			polled <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		_, err = b.ReadFrom(resp.Body)
		polled <- answer{status: resp.StatusCode, body: b.Bytes(), err: err}
	}()
	pollUntil(t, "the long poll waits", func() bool { return s.scrape()["turnstile_approval_waiters"] == 1 })
	select {
	case a := <-polled:
		t.Fatalf("the long poll returned before SIGTERM: %+v", a)
	default:
	}
	if err := s.Stop(); err != nil {
		t.Fatalf("SIGTERM with a long poll in flight: %v\n%s", err, s.Output())
	}
	var a answer
	select {
	case a = <-polled:
	case <-time.After(30 * time.Second):
		t.Fatal("the long poll was never answered")
	}
	if a.err != nil || a.status != http.StatusOK {
		t.Fatalf("long poll across SIGTERM: status %d err %v body %s", a.status, a.err, a.body)
	}
	var v approvalView
	if err := json.Unmarshal(a.body, &v); err != nil || v.Status != "pending" || v.Request.RequestID != reqID {
		t.Fatalf("long poll answer %s (%v)", a.body, err)
	}
	// The event stream ended with the process.
	select {
	case _, ok := <-sse.ch:
		for ok {
			_, ok = <-sse.ch
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the event stream outlived the process")
	}

	s.start()
	var again approvalView
	s.JSON("GET", "/v1/approvals/"+reqID, nil, http.StatusOK, &again)
	if again.Status != "pending" {
		t.Fatalf("request after the restart: %+v", again)
	}
	s.respond(reqID, "deny")
	if tr := s.turn("term"); tr.Turn.Status != "in_progress" || tr.Turn.PendingApprovals != 0 {
		t.Fatalf("turn after the response: %+v", tr.Turn)
	}
}
