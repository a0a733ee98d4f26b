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

// TestEventsPageFitsTheBodyBudget: a page of a turn's events is bounded by
// what a request's share of --max-body-memory can hold as well as by 8
// MiB, so that a small budget pages a turn of large events instead of
// answering 503 to every read of it (the audit and replay of that turn
// would never succeed). Every event is served once over the pages, in
// order. Control: with the default budget the same turn is one page.
func TestEventsPageFitsTheBodyBudget(t *testing.T) {
	fill := func(s *inProcess) {
		t.Helper()
		if st, b := s.do("POST", "/v1/turns", map[string]any{"turn_id": "big", "workspace_id": "ws", "thread_id": "th",
			"permission_profile": map[string]string{"mode": "full_access"}, "workspace_root": t.TempDir()}); st != http.StatusCreated {
			t.Fatalf("start: %d %s", st, b)
		}
		for i := range 8 {
			if st, b := s.do("POST", "/v1/turns/big/decisions", map[string]any{"tool_call_id": fmt.Sprintf("c%d", i), "tool_name": "exec_command",
				"arguments": map[string]any{"cmd": fmt.Sprintf("echo %d %s", i, strings.Repeat("A", 60_000))}}); st != http.StatusOK {
				t.Fatalf("decide c%d: %d %.200s", i, st, b)
			}
		}
	}
	type page struct {
		Events []struct {
			Version int `json:"version"`
		} `json:"events"`
		Next *int `json:"next"`
	}
	read := func(s *inProcess) (pages int, versions []int) {
		t.Helper()
		from := 0
		for {
			st, b := s.do("GET", fmt.Sprintf("/v1/turns/big/events?from=%d", from), nil)
			var p page
			if st != http.StatusOK || json.Unmarshal(b, &p) != nil {
				t.Fatalf("GET events from %d: %d %.200s", from, st, b)
			}
			pages++
			for _, e := range p.Events {
				versions = append(versions, e.Version)
			}
			if p.Next == nil {
				return pages, versions
			}
			from = *p.Next
		}
	}
	check := func(versions []int) {
		t.Helper()
		for i, v := range versions {
			if v != i {
				t.Fatalf("event %d of the pages has version %d: %v", i, v, versions)
			}
		}
		if len(versions) < 9 {
			t.Fatalf("%d events over the pages, want the turn's start and 8 decisions at least", len(versions))
		}
	}

	small := startInProcessOn(t, filepath.Join(t.TempDir(), "events.db"), func(c *api.Config) { c.MaxBodyMemory = 1 << 20 }) // a share: 512 KiB
	fill(small)
	pages, versions := read(small)
	check(versions)
	if pages < 2 {
		t.Errorf("a turn of about 1 MB of events came in %d page under a 512 KiB share", pages)
	}

	control := startInProcessOn(t, filepath.Join(t.TempDir(), "events.db"))
	fill(control)
	pages, versions = read(control)
	check(versions)
	if pages != 1 {
		t.Errorf("control: with the default budget the turn came in %d pages, want 1", pages)
	}
}
