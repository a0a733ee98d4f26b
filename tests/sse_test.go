package tests

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"
)

// positionsOf returns the store positions of a turn's events from version
// from on.
func (s *Server) positionsOf(turnID string, from int64) []string {
	s.t.Helper()
	evs, _ := s.events(turnID)
	var out []string
	for _, e := range evs {
		if e.Version >= from {
			out = append(out, e.Position)
		}
	}
	return out
}

func position(t testing.TB, id string) uint64 {
	t.Helper()
	p, err := strconv.ParseUint(id, 10, 64)
	if err != nil {
		t.Fatalf("event id %q is not a position: %v", id, err)
	}
	return p
}

// TestSSEResumeWithLastEventID reads some events, disconnects, appends
// more, and reconnects with Last-Event-ID: exactly the missed events come,
// in order, none twice.
func TestSSEResumeWithLastEventID(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)

	first := s.subscribe("", "")
	s.startTurn("r1", "ws", "auto_accept_edits", root)
	s.decide("r1", "c1", "read_file", map[string]any{"path": "a.txt"})
	var seen []sseEvent
	for range 4 {
		seen = append(seen, first.Next())
	}
	first.Close()
	if seen[0].Event != "turn/started" || seen[3].Params["tool_call_id"] != "c1" {
		t.Fatalf("first events %v", seen)
	}
	last := seen[len(seen)-1].ID
	if want := s.positionsOf("r1", 0); fmt.Sprint(ids(seen)) != fmt.Sprint(want) {
		t.Fatalf("event ids %v, want the store positions %v", ids(seen), want)
	}

	// Missed while disconnected: two decisions on r1 and a new turn r2.
	s.decide("r1", "c2", "exec_command", map[string]any{"cmd": "ls"})
	s.decide("r1", "c3", "task_list", nil)
	s.startTurn("r2", "ws", "full_access", root)
	missed := append(s.positionsOf("r1", 4), s.positionsOf("r2", 0)...)
	if len(missed) != 5 {
		t.Fatalf("missed positions %v", missed)
	}

	from := last
	for _, how := range []string{"header", "query"} {
		var st *sseStream
		if how == "header" {
			st = s.subscribe("", from)
		} else {
			st = s.subscribe("last_event_id="+from, "")
		}
		var got []sseEvent
		for range missed {
			got = append(got, st.Next())
		}
		if fmt.Sprint(ids(got)) != fmt.Sprint(missed) {
			t.Fatalf("%s resume from %s: ids %v, want %v", how, from, ids(got), missed)
		}
		prev := position(t, from)
		for _, e := range got {
			if p := position(t, e.ID); p <= prev {
				t.Fatalf("%s resume: id %d after %d", how, p, prev)
			} else {
				prev = p
			}
		}
		if got[0].Event != "turn/permission/request/opened" || got[1].Params["tool_call_id"] != "c3" || got[2].Event != "turn/started" || got[2].Params["turn_id"] != "r2" {
			t.Fatalf("%s resume: events %v", how, got)
		}
		// Nothing else is pending: the next event is the next append.
		d := s.decide("r2", "sentinel-"+how, "task_list", nil)
		e := st.Next()
		if e.Params["tool_call_id"] != "sentinel-"+how || e.Params["version"] != float64(d.Version) {
			t.Fatalf("%s resume: after the missed events came %s %v", how, e.Event, e.Params)
		}
		st.Close()
		// The query variant resumes from the same id: it also missed this.
		missed = append(missed, e.ID)
	}

	status, body := s.Request("GET", "/v1/events", nil, "Last-Event-ID", "not-a-position")
	wantError(t, status, body, http.StatusBadRequest, "invalid_field")
}

func ids(evs []sseEvent) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.ID
	}
	return out
}

// TestSSEFilters checks the turn_id and workspace_id filters, and from=start.
func TestSSEFilters(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("a1", "ws-a", "full_access", root)
	s.startTurn("b1", "ws-b", "full_access", root)
	s.decide("a1", "c1", "task_list", nil)
	s.decide("b1", "c1", "task_list", nil)
	s.startTurn("b2", "ws-b", "supervised", root)

	all := func(turns ...string) func() []string {
		return func() []string {
			var out []string
			for _, id := range turns {
				out = append(out, s.positionsOf(id, 0)...)
			}
			return out
		}
	}
	cases := []struct {
		query string
		want  func() []string // positions, read when the stream opens
		other string          // a turn the filter drops
		match string          // a turn the filter keeps
	}{
		{"from=start", all("a1", "b1", "b2"), "", "a1"},
		{"from=start&turn_id=b1", all("b1"), "a1", "b1"},
		{"from=start&workspace_id=ws-b", all("b1", "b2"), "a1", "b2"},
		{"from=start&workspace_id=ws-none", all(), "a1", ""},
	}
	for i, tc := range cases {
		want := sortedPositions(t, tc.want())
		st := s.subscribe(tc.query, "")
		var got []sseEvent
		for range want {
			got = append(got, st.Next())
		}
		if fmt.Sprint(ids(got)) != fmt.Sprint(want) {
			t.Fatalf("%s: ids %v, want %v", tc.query, ids(got), want)
		}
		// Then a filtered-out event, then a kept one: only the kept one comes.
		if tc.other != "" {
			s.decide(tc.other, fmt.Sprintf("drop-%d", i), "task_list", nil)
		}
		keep := tc.match
		if keep == "" {
			s.startTurn("none-1", "ws-none", "full_access", root)
			keep = "none-1"
		} else {
			s.decide(keep, fmt.Sprintf("keep-%d", i), "task_list", nil)
		}
		e := st.Next()
		if e.Params["turn_id"] != keep {
			t.Fatalf("%s: after the history came %s %v, want an event of %s", tc.query, e.Event, e.Params, keep)
		}
		st.Close()
	}
}

// sortedPositions orders positions numerically.
func sortedPositions(t testing.TB, ps []string) []string {
	out := append([]string(nil), ps...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if position(t, out[j]) < position(t, out[i]) {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// TestSSEResumeAcrossRestart resumes with an id seen before a restart:
// positions survive the process.
func TestSSEResumeAcrossRestart(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	st := s.subscribe("", "")
	s.startTurn("rs", "ws", "full_access", root)
	var last string
	for range 3 {
		last = st.Next().ID
	}
	st.Close()
	s.decide("rs", "before", "task_list", nil)
	s.Restart()
	s.decide("rs", "after", "task_list", nil)
	st = s.subscribe("", last)
	for _, want := range []string{"before", "after"} {
		if e := st.Next(); e.Params["tool_call_id"] != want {
			t.Fatalf("resumed across the restart: %s %v, want %s", e.Event, e.Params, want)
		}
	}
	if want := s.positionsOf("rs", 0); want[2] != last {
		t.Fatalf("positions changed across the restart: %v, last seen %s", want, last)
	}
}
