package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/api"
)

// Review 160 (medium): fix156 bounds a page of GET /v1/turns/{id}/events
// by a quarter of --max-body-memory (api/events.go: eventsPageBytes), "so
// that a small budget pages a turn of large events instead of answering
// 503 to every read of it" — but a page always holds one event at least,
// and one event can be three times the request that made it: an
// exec_command decision's permission.decision_allowed carries its command
// about three times (measured: a 394 KB event for a 131 KB cmd), so a cmd of 131,000 bytes (under the 131,071 a field may
// have) is a 131 KB request and a 394 KB event. Under --max-body-memory
// 512 KiB (any positive value is accepted) the request fits its
// principal's share (256 KiB) and is decided, and the event's page,
// alone, is held against the reader's share by writeJSON (holdAnswer) and
// refused: 503 server_busy at every read, with no way past it (limit=1
// gives the same page). The turn's history after that point, its audit
// and a replay through the API, never succeed; the agent, with the
// runtime's credential, makes it so with one decision request.
//
// Control: the same turn under 1 MiB (a share of 512 KiB) reads whole,
// over pages.
//
// Suggested fix: bound what an event may take when it is appended (a
// decision event's copies of the command counted against the request's
// share: store the command once), or hold the answer of a page of one
// event against the server's budget instead of refusing it (or stream it
// from the store without holding it), or refuse a --max-body-memory under
// what the largest event needs (about 3 × 128 KiB × 2).
func TestAttack160_OneEventPageOverTheShare(t *testing.T) {
	fill := func(s *inProcess) {
		t.Helper()
		if st, b := s.do("POST", "/v1/turns", map[string]any{"turn_id": "big", "workspace_id": "ws", "thread_id": "th",
			"permission_profile": map[string]string{"mode": "full_access"}, "workspace_root": t.TempDir()}); st != http.StatusCreated {
			t.Fatalf("start: %d %s", st, b)
		}
		if st, b := s.do("POST", "/v1/turns/big/decisions", map[string]any{"tool_call_id": "c1", "tool_name": "exec_command",
			"arguments": map[string]any{"cmd": "echo " + strings.Repeat("A", 131_000)}}); st != http.StatusOK {
			t.Fatalf("decide: %d %.200s", st, b)
		}
	}
	read := func(s *inProcess) (versions []int, failed string) {
		t.Helper()
		from := 0
		for range 20 {
			st, b := s.do("GET", fmt.Sprintf("/v1/turns/big/events?from=%d&limit=1", from), nil)
			var p struct {
				Events []struct {
					Version int `json:"version"`
				} `json:"events"`
				Next *int `json:"next"`
			}
			if st != http.StatusOK || json.Unmarshal(b, &p) != nil {
				return versions, fmt.Sprintf("GET events from %d: %d %.200s", from, st, b)
			}
			for _, e := range p.Events {
				versions = append(versions, e.Version)
			}
			if p.Next == nil {
				return versions, ""
			}
			from = *p.Next
		}
		return versions, "more than 20 pages"
	}

	control := startInProcessOn(t, filepath.Join(t.TempDir(), "events.db"), func(c *api.Config) { c.MaxBodyMemory = 1 << 20 })
	fill(control)
	if v, failed := read(control); failed != "" || len(v) < 4 {
		t.Fatalf("control: under a 1 MiB budget the turn reads %v, %s", v, failed)
	}

	small := startInProcessOn(t, filepath.Join(t.TempDir(), "events.db"), func(c *api.Config) { c.MaxBodyMemory = 512 << 10 })
	fill(small)
	for try := range 3 {
		if v, failed := read(small); failed != "" {
			t.Errorf("read %d: a turn whose one decision request fit the share (256 KiB) cannot be read past it: %s (read %v)", try, failed, v)
		}
	}
}
