package api_test

import (
	"strings"
	"testing"

	"turnstile/api"
	"turnstile/domain/eventstore"
)

// TestSSELiveBroadcastKeepsWorkspaceScope: on the live broadcast (not a
// catch-up), a ws-a approver's stream carries ws-a's events only — also for
// a ws-b turn started before the broadcaster existed, whose start it never
// saw — while the admin's stream (the control) carries all of them, from
// the same frames.
func TestSSELiveBroadcastKeepsWorkspaceScope(t *testing.T) {
	s := startSSE(t, api.Config{}, 0)
	s.decisions("b0", 0, 1) // ws-b0, before any stream
	approver := s.credential("ap-a", "approver", "ws-a1")
	start := s.proj.Position()
	admin := s.openSSE("from=now", "", 0)
	scoped := s.as(approver).openSSE("from=now", "", 0)

	s.decisions("b0", 1, 3) // a turn whose start the broadcaster never saw
	s.decisions("a1", 0, 3)
	s.decisions("b0", 4, 2)
	want := s.turnPositions(start)
	end := want[len(want)-1]

	ids, _ := admin.until(t, end)
	equalIDs(t, "admin stream", ids, want)

	// The scoped stream: exactly a1's events, in order.
	recs, err := s.store.ReadAll(t.Context(), start, 0)
	if err != nil {
		t.Fatal(err)
	}
	var a1 []string
	for _, r := range recs {
		if r.Stream == "turn-a1" {
			a1 = append(a1, r.Position.String())
		}
	}
	got, _ := scoped.until(t, a1[len(a1)-1])
	equalIDs(t, "ws-a1 approver's stream", got, a1)
	// Nor b0's events after a1's last one: the next frame is a1's next
	// event, appended after them.
	s.decisions("a1", 3, 1)
	f, err := scoped.next()
	if err != nil {
		t.Fatal(err)
	}
	p, _ := eventstore.ParsePosition(f.id)
	recs, _ = s.store.ReadStream(t.Context(), "turn-a1", 0, 0)
	if lastA1 := recs[len(recs)-1].Position; p != lastA1 || !strings.Contains(f.data, `"a1"`) {
		t.Fatalf("after a1's events the scoped stream sent %s (%s), want a1's next event at %v", f.id, f.data, lastA1)
	}
}
