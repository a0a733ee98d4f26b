package api_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"turnstile/api"
)

// status opens /v1/events?q as s's credential and returns the status (the
// stream, when 200, is closed).
func (s *sseServer) eventsStatus(q string) (int, string) {
	s.t.Helper()
	req, _ := http.NewRequest("GET", s.url+"/v1/events?"+q, nil)
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		return 200, ""
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestRevSSEScopedTurnStreamsHold (holds): a ws-a1 approver may not follow
// a ws-b1 turn, a turn that does not exist yet (later started in ws-b1), or
// ws-b1, over SSE or the WebSocket; its resumed stream, with other
// workspaces' events appended at the hand-over from the store to the
// broadcast, carries ws-a1's events only. Each refusal has its control.
func TestRevSSEScopedTurnStreamsHold(t *testing.T) {
	s := startSSE(t, api.Config{}, 0)
	s.decisions("a1", 0, 2)
	s.decisions("b1", 0, 2)
	ap := s.as(s.credential("ap-a", "approver", "ws-a1"))
	for _, c := range []struct {
		q    string
		want int
	}{
		{"turn_id=a1", 200}, {"turn_id=b1", 403}, {"turn_id=later", 404},
		{"workspace_id=ws-a1", 200}, {"workspace_id=ws-b1", 403},
		{"turn_id=a1&workspace_id=ws-b1", 403},
	} {
		if st, b := ap.eventsStatus(c.q); st != c.want {
			t.Errorf("GET /v1/events?%s: %d %s, want %d", c.q, st, b, c.want)
		}
	}
	// The WebSocket: refused for b1 (the handshake fails), works for a1.
	if st, b := ap.rpcUpgradeStatus("turn_id=b1"); st != http.StatusForbidden {
		t.Errorf("GET /rpc?turn_id=b1 upgrade: %d %s, want 403", st, b)
	}
	if st, b := ap.rpcUpgradeStatus("turn_id=later"); st != http.StatusNotFound {
		t.Errorf("GET /rpc?turn_id=later upgrade: %d %s, want 404", st, b)
	}
	wsA := ap.dialRPC("turn_id=a1", 0)
	start := s.proj.Position()
	// A resumed stream: other workspaces' events land at the hand-over.
	hooked := make(chan struct{})
	api.SetBeforeJoinHook(func(*http.Request) {
		api.SetBeforeJoinHook(nil)
		s.decisions("b1", 2, 5)
		s.decisions("later", 0, 3)
		s.decisions("a1", 2, 2)
		close(hooked)
	})
	defer api.SetBeforeJoinHook(nil)
	resumed := ap.openSSE("", start.String(), 0)
	<-hooked
	live := ap.openSSE("from=now", "", 0)
	s.decisions("later", 3, 3)
	s.decisions("a1", 4, 1)
	wantA := s.turnPositionsOf(start, "a1")
	last := wantA[len(wantA)-1]
	watchdog := time.AfterFunc(30*time.Second, func() { resumed.resp.Body.Close(); live.resp.Body.Close() })
	defer watchdog.Stop()
	ids, other := resumed.until(t, last)
	equalIDs(t, "resumed ws-a1 stream", ids, wantA)
	if len(other) > 0 {
		t.Fatalf("resumed stream: non-event frames %+v", other)
	}
	ids, _ = live.until(t, last)
	for _, id := range ids {
		found := false
		for _, w := range wantA {
			found = found || w == id
		}
		if !found {
			t.Fatalf("live ws-a1 stream carried %s, not an a1 event", id)
		}
	}
	wsA.SetReadDeadline(time.Now().Add(30 * time.Second))
	for range 3 { // a1's events after the socket opened: 2 at the hand-over, 1 after
		m, err := readRPC(wsA)
		if err != nil || !strings.Contains(string(m.Params), `"a1"`) {
			t.Fatalf("ws-a1 socket of a1: %+v %v", m, err)
		}
	}
}

// rpcUpgradeStatus sends GET /rpc?q with the upgrade headers and returns the
// status when the server refuses the upgrade.
func (s *sseServer) rpcUpgradeStatus(q string) (int, string) {
	s.t.Helper()
	req, _ := http.NewRequest("GET", s.url+"/rpc?"+q, nil)
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, string(b)
}

// TestRevSSEScopedStreamCountsOthers: a ws-a1 approver's stream carries
// ws-a1's events only, but each one's id is its global store position, and
// the stream opens with the global head (": turnstile events from N"): the
// gap between two ids counts the events of every other workspace in
// between (here, b1's 30 decisions), and the opening comment and the
// error details (last_event_id) say how far the log has gone. The control:
// with no activity elsewhere the ids are consecutive.
func TestRevSSEScopedStreamCountsOthers(t *testing.T) {
	s := startSSE(t, api.Config{}, 0)
	s.decisions("a1", 0, 1)
	s.decisions("b1", 0, 1)
	ap := s.as(s.credential("ap-a", "approver", "ws-a1"))
	c := ap.openSSE("from=now", "", 0)
	id := func() int {
		f, err := c.next()
		if err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.Atoi(f.id)
		return n
	}
	s.decisions("a1", 1, 2)
	first, second := id(), id()
	if second-first != 1 {
		t.Fatalf("control: consecutive a1 events %d, %d", first, second)
	}
	s.decisions("b1", 1, 30)
	s.decisions("a1", 3, 1)
	if third := id(); third-second-1 != 0 {
		t.Fatalf("the ws-a1 approver's stream counts %d events of other workspaces between two of its own (ids %d, %d)", third-second-1, second, third)
	}
}
