package embeddedtest

import (
	"context"
	"errors"
	"testing"

	"turnstile/adapters/internal/storekit"
	"turnstile/domain/eventstore"
)

func testReopenKeepsEverything(t *testing.T, k Kind) {
	path := k.path(t)
	s := k.open(t, path)
	a, b := NewEvents(3), NewEvents(2)
	MustAppend(t, s, "turn-a", eventstore.NoStream(), a[:2])
	rb := MustAppend(t, s, "turn-b", eventstore.Any(), b)
	ra := MustAppend(t, s, "turn-a", eventstore.Exactly(1), a[2:])
	before := MustReadAll(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = k.open(t, path)
	defer s.Close()
	after := MustReadAll(t, s)
	if len(after) != len(before) || len(after) != 5 {
		t.Fatalf("after reopen %d events, before %d", len(after), len(before))
	}
	for i := range before {
		x, y := before[i], after[i]
		if x.ID != y.ID || x.Stream != y.Stream || x.Revision != y.Revision || x.Position != y.Position ||
			x.Type != y.Type || string(x.Data) != string(y.Data) || !x.Created.Equal(y.Created) {
			t.Errorf("event %d: before %+v, after %+v", i, x, y)
		}
	}
	// Retries are still recognised (the indexes are durable)...
	if got := MustAppend(t, s, "turn-a", eventstore.Exactly(1), a[2:]); got != ra {
		t.Errorf("Exactly retry after reopen = %+v, want %+v", got, ra)
	}
	if got := MustAppend(t, s, "turn-b", eventstore.Any(), b); got != rb {
		t.Errorf("Any retry after reopen = %+v, want %+v", got, rb)
	}
	// ...and new appends continue the revisions and positions.
	r := MustAppend(t, s, "turn-a", eventstore.Exactly(2), NewEvents(1))
	if r.NextExpectedRevision != 3 || r.Position.Commit != 6 {
		t.Errorf("append after reopen = %+v, want revision 3 at position 6", r)
	}
}

func testWrongExpectedVersionActual(t *testing.T, k Kind) {
	s := k.open(t, k.path(t))
	defer s.Close()
	ctx := Ctx(t)
	MustAppend(t, s, "s", eventstore.NoStream(), NewEvents(3))
	for _, c := range []struct {
		stream string
		exp    eventstore.ExpectedVersion
		actual int64
	}{
		{"s", eventstore.NoStream(), 2},
		{"s", eventstore.Exactly(0), 2},
		{"s", eventstore.Exactly(7), 2},
		{"missing", eventstore.Exactly(0), -1},
	} {
		_, err := s.Append(ctx, c.stream, c.exp, NewEvents(1))
		var wev *eventstore.WrongExpectedVersionError
		if !errors.As(err, &wev) || wev.Actual != c.actual || wev.Stream != c.stream || wev.Expected != c.exp {
			t.Errorf("Append(%s, %s): %v, want wrong expected version with actual %d", c.stream, c.exp, err, c.actual)
		}
	}
}

func testAnyRetryRules(t *testing.T, k Kind) {
	s := k.open(t, k.path(t))
	defer s.Close()
	ctx := Ctx(t)
	ab := NewEvents(2)
	orig := MustAppend(t, s, "s", eventstore.Any(), ab)
	MustAppend(t, s, "s", eventstore.Any(), NewEvents(1))

	// A retry of events that are no longer the latest is still recognised.
	if got := MustAppend(t, s, "s", eventstore.Any(), ab); got != orig {
		t.Errorf("late Any retry = %+v, want %+v", got, orig)
	}
	// A prefix of a stored append is a retry of its first events.
	if got := MustAppend(t, s, "s", eventstore.Any(), ab[:1]); got.NextExpectedRevision != 0 {
		t.Errorf("Any retry of the first event = %+v, want revision 0", got)
	}
	// A stored first id followed by a new one conflicts.
	_, err := s.Append(ctx, "s", eventstore.Any(), []eventstore.EventData{ab[0], NewEvents(1)[0]})
	var wev *eventstore.WrongExpectedVersionError
	if !errors.As(err, &wev) || wev.Actual != 2 {
		t.Errorf("Any with a stored then a new id: %v, want wrong expected version (actual 2)", err)
	}
	// The same id in another stream is a different event.
	if got := MustAppend(t, s, "other", eventstore.Any(), ab[:1]); got.NextExpectedRevision != 0 || got.Position.Commit != 4 {
		t.Errorf("same id in another stream = %+v, want a new event at position 4", got)
	}
	if n := len(MustReadAll(t, s)); n != 4 {
		t.Errorf("log has %d events, want 4", n)
	}
}

// testBatchSemantics drives one commit with several requests directly:
// each gets its own result and later ones see earlier ones' effects.
func testBatchSemantics(t *testing.T, k Kind) {
	s := k.open(t, k.path(t))
	defer s.Close()
	ctx := Ctx(t)
	MustAppend(t, s, "x", eventstore.NoStream(), NewEvents(1))
	commits := s.Stats().Commits

	a1, a2, b1 := NewEvents(1), NewEvents(2), NewEvents(1)
	got, err := k.CommitBatch(ctx, s, []Append{
		{"a", eventstore.NoStream(), a1},           // writes a@0
		{"a", eventstore.NoStream(), NewEvents(1)}, // conflicts with the request above
		{"a", eventstore.Exactly(0), a2},           // sees a@0, writes a@1..2
		{"a", eventstore.NoStream(), a1},           // retry of the first request
		{"x", eventstore.Exactly(5), b1},           // conflicts with the stored stream
		{"b", eventstore.Any(), b1},                // writes b@0
	})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Err != nil || got[0].Res.NextExpectedRevision != 0 || got[0].Res.Position.Commit != 2 {
		t.Errorf("request 0: %+v", got[0])
	}
	var wev *eventstore.WrongExpectedVersionError
	if !errors.As(got[1].Err, &wev) || wev.Actual != 0 {
		t.Errorf("request 1: %+v, want wrong expected version with actual 0", got[1])
	}
	if got[2].Err != nil || got[2].Res.NextExpectedRevision != 2 || got[2].Res.Position.Commit != 4 {
		t.Errorf("request 2: %+v", got[2])
	}
	if got[3].Err != nil || got[3].Res != got[0].Res {
		t.Errorf("request 3 (retry): %+v, want %+v", got[3], got[0].Res)
	}
	if !errors.As(got[4].Err, &wev) || wev.Actual != 0 {
		t.Errorf("request 4: %+v, want wrong expected version with actual 0", got[4])
	}
	if got[5].Err != nil || got[5].Res.NextExpectedRevision != 0 || got[5].Res.Position.Commit != 5 {
		t.Errorf("request 5: %+v", got[5])
	}
	if st := s.Stats(); st.Commits != commits+1 {
		t.Errorf("batch took %d commits, want 1", st.Commits-commits)
	}
	if n := len(MustReadAll(t, s)); n != 5 {
		t.Errorf("log has %d events, want 5", n)
	}
}

func testInvalidInput(t *testing.T, k Kind) {
	s := k.open(t, k.path(t))
	defer s.Close()
	ctx := Ctx(t)
	noType := NewEvents(1)
	noType[0].Type = ""
	for name, c := range map[string]struct {
		stream string
		evs    []eventstore.EventData
	}{
		"empty stream name": {"", NewEvents(1)},
		"long stream name":  {string(make([]byte, storekit.MaxStreamName+1)), NewEvents(1)},
		"no events":         {"s", nil},
		"no type":           {"s", noType},
	} {
		if _, err := s.Append(ctx, c.stream, eventstore.Any(), c.evs); !errors.Is(err, k.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Append(cancelled, "s", eventstore.Any(), NewEvents(1)); !errors.Is(err, context.Canceled) {
		t.Errorf("append with a cancelled context: %v", err)
	}
	if n := len(MustReadAll(t, s)); n != 0 {
		t.Errorf("refused appends wrote %d events", n)
	}
}
