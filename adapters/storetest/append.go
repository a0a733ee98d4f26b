package storetest

import (
	"errors"

	"github.com/google/uuid"

	"turnstile/domain/eventstore"
)

func appendCases() []testCase {
	return []testCase{
		{"AppendNoStreamCreatesStream", testAppendNoStreamCreates},
		{"AppendNoStreamOnExistingStream", testAppendNoStreamExisting},
		{"AppendExactly", testAppendExactly},
		{"AppendExactlyWrong", testAppendExactlyWrong},
		{"AppendAny", testAppendAny},
		{"AppendRefusesInvalidInput", testAppendInvalid},
		{"AppendRefusesUnsetExpectedVersion", testAppendUnsetExpected},
	}
}

func idempotencyCases() []testCase {
	return []testCase{
		{"IdempotentRetryNoStream", testRetryNoStream},
		{"IdempotentRetryExactly", testRetryExactly},
		{"IdempotentRetryAny", testRetryAny},
		{"DifferentIDAtOldRevision", testDifferentIDAtOldRevision},
	}
}

func testAppendNoStreamCreates(f *fixture) {
	s := f.stream("a")
	evs := events(2, "created")
	res := f.mustAppend(s, eventstore.NoStream(), evs)
	if res.NextExpectedRevision != 1 {
		f.t.Errorf("NextExpectedRevision = %d, want 1", res.NextExpectedRevision)
	}
	got := f.readStream(s, 0, 0)
	f.checkEvents("ReadStream", got, seq(s, 0, evs))
	if res.Position != got[1].Position {
		f.t.Errorf("AppendResult.Position = %s, want the last event's position %s", res.Position, got[1].Position)
	}
	f.checkEvents("ReadAll", f.readAllOurs(eventstore.Start), seq(s, 0, evs))
}

// testAppendUnsetExpected: the zero ExpectedVersion is refused with
// ErrNoExpectedVersion and writes nothing, on a new stream and an existing
// one; the same append with an explicit Any (the control) succeeds.
func testAppendUnsetExpected(f *fixture) {
	s := f.stream("a")
	if _, err := f.store.Append(f.ctx, s, eventstore.ExpectedVersion{}, events(1, "unset")); !errors.Is(err, eventstore.ErrNoExpectedVersion) {
		f.t.Fatalf("Append with the zero ExpectedVersion on a new stream: %v, want ErrNoExpectedVersion", err)
	}
	if got := f.readStream(s, 0, 0); len(got) != 0 {
		f.t.Fatalf("the refused append wrote %d events", len(got))
	}
	first := events(1, "first")
	f.mustAppend(s, eventstore.Any(), first)
	if _, err := f.store.Append(f.ctx, s, eventstore.ExpectedVersion{}, events(1, "unset")); !errors.Is(err, eventstore.ErrNoExpectedVersion) {
		f.t.Fatalf("Append with the zero ExpectedVersion on an existing stream: %v, want ErrNoExpectedVersion", err)
	}
	f.checkEvents("ReadStream", f.readStream(s, 0, 0), seq(s, 0, first))
}

func testAppendNoStreamExisting(f *fixture) {
	s := f.stream("a")
	first := events(1, "first")
	f.mustAppend(s, eventstore.NoStream(), first)
	_, err := f.store.Append(f.ctx, s, eventstore.NoStream(), events(2, "second"))
	f.wantWrongVersion(err, s, eventstore.NoStream(), 0)
	f.checkEvents("ReadStream", f.readStream(s, 0, 0), seq(s, 0, first))
	f.checkEvents("ReadAll", f.readAllOurs(eventstore.Start), seq(s, 0, first))
}

func testAppendExactly(f *fixture) {
	s := f.stream("a")
	a, b, cd := events(1, "a"), events(1, "b"), events(2, "cd")
	r0 := f.mustAppend(s, eventstore.NoStream(), a)
	r1 := f.mustAppend(s, eventstore.Exactly(0), b)
	r3 := f.mustAppend(s, eventstore.Exactly(1), cd)
	if r0.NextExpectedRevision != 0 || r1.NextExpectedRevision != 1 || r3.NextExpectedRevision != 3 {
		f.t.Errorf("NextExpectedRevision = %d, %d, %d; want 0, 1, 3", r0.NextExpectedRevision, r1.NextExpectedRevision, r3.NextExpectedRevision)
	}
	if !r0.Position.Less(r1.Position) || !r1.Position.Less(r3.Position) {
		f.t.Errorf("positions not increasing: %s, %s, %s", r0.Position, r1.Position, r3.Position)
	}
	all := append(append(append([]eventstore.EventData{}, a...), b...), cd...)
	got := f.readStream(s, 0, 0)
	f.checkEvents("ReadStream", got, seq(s, 0, all))
	if got[3].Position != r3.Position {
		f.t.Errorf("last event at %s, AppendResult.Position %s", got[3].Position, r3.Position)
	}
}

func testAppendExactlyWrong(f *fixture) {
	s, missing := f.stream("a"), f.stream("missing")
	stored := events(2, "stored")
	f.mustAppend(s, eventstore.NoStream(), stored)

	_, err := f.store.Append(f.ctx, s, eventstore.Exactly(5), events(1, "ahead"))
	f.wantWrongVersion(err, s, eventstore.Exactly(5), 1)
	_, err = f.store.Append(f.ctx, s, eventstore.Exactly(2), events(1, "just-ahead"))
	f.wantWrongVersion(err, s, eventstore.Exactly(2), 1)
	_, err = f.store.Append(f.ctx, s, eventstore.Exactly(0), events(1, "behind"))
	f.wantWrongVersion(err, s, eventstore.Exactly(0), 1)
	_, err = f.store.Append(f.ctx, missing, eventstore.Exactly(0), events(1, "missing"))
	f.wantWrongVersion(err, missing, eventstore.Exactly(0), -1)

	f.checkEvents("ReadStream", f.readStream(s, 0, 0), seq(s, 0, stored))
	if got := f.readStream(missing, 0, 0); len(got) != 0 {
		f.t.Errorf("missing stream has %d events after a refused append", len(got))
	}
	f.checkEvents("ReadAll", f.readAllOurs(eventstore.Start), seq(s, 0, stored))
}

func testAppendAny(f *fixture) {
	s := f.stream("a")
	a, bc := events(1, "a"), events(2, "bc")
	if r := f.mustAppend(s, eventstore.Any(), a); r.NextExpectedRevision != 0 {
		f.t.Errorf("Any on a new stream: NextExpectedRevision = %d, want 0", r.NextExpectedRevision)
	}
	if r := f.mustAppend(s, eventstore.Any(), bc); r.NextExpectedRevision != 2 {
		f.t.Errorf("Any on an existing stream: NextExpectedRevision = %d, want 2", r.NextExpectedRevision)
	}
	f.checkEvents("ReadStream", f.readStream(s, 0, 0), seq(s, 0, append(a, bc...)))
}

func testAppendInvalid(f *fixture) {
	s, fresh := f.stream("a"), f.stream("fresh")
	stored := events(1, "stored")
	f.mustAppend(s, eventstore.NoStream(), stored)

	nilID := events(1, "nil-id")
	nilID[0].ID = uuid.Nil
	mixed := append(events(1, "valid"), nilID...)
	bad := []struct {
		what string
		evs  []eventstore.EventData
	}{
		{"nil event list", nil},
		{"empty event list", []eventstore.EventData{}},
		{"uuid.Nil event id", nilID},
		{"one valid event and one with uuid.Nil", mixed},
	}
	for _, b := range bad {
		for _, target := range []struct {
			stream string
			exp    eventstore.ExpectedVersion
		}{{s, eventstore.Exactly(0)}, {s, eventstore.Any()}, {fresh, eventstore.NoStream()}, {fresh, eventstore.Any()}} {
			_, err := f.store.Append(f.ctx, target.stream, target.exp, b.evs)
			if err == nil {
				f.t.Errorf("Append(%s, %s) with %s: no error", target.stream, target.exp, b.what)
			}
			var wev *eventstore.WrongExpectedVersionError
			if errors.As(err, &wev) {
				f.t.Errorf("Append(%s, %s) with %s: %v; want an input error, not a version conflict", target.stream, target.exp, b.what, err)
			}
		}
	}
	f.checkEvents("ReadStream", f.readStream(s, 0, 0), seq(s, 0, stored))
	if got := f.readStream(fresh, 0, 0); len(got) != 0 {
		f.t.Errorf("refused appends created %d events", len(got))
	}
	f.checkEvents("ReadAll", f.readAllOurs(eventstore.Start), seq(s, 0, stored))
}

func testRetryNoStream(f *fixture) {
	s := f.stream("a")
	evs := events(2, "original")
	orig := f.mustAppend(s, eventstore.NoStream(), evs)
	for range 2 {
		again := f.mustAppend(s, eventstore.NoStream(), evs)
		if again != orig {
			f.t.Errorf("retry result = %+v, want the original %+v", again, orig)
		}
	}
	f.checkEvents("ReadStream", f.readStream(s, 0, 0), seq(s, 0, evs))
	f.checkEvents("ReadAll", f.readAllOurs(eventstore.Start), seq(s, 0, evs))
}

func testRetryExactly(f *fixture) {
	s := f.stream("a")
	a, bc, d := events(1, "a"), events(2, "bc"), events(1, "d")
	f.mustAppend(s, eventstore.NoStream(), a)
	orig := f.mustAppend(s, eventstore.Exactly(0), bc)

	// A retry while the original is still the stream's head.
	if again := f.mustAppend(s, eventstore.Exactly(0), bc); again != orig {
		f.t.Errorf("immediate retry result = %+v, want the original %+v", again, orig)
	}
	// A retry after the stream has moved on.
	f.mustAppend(s, eventstore.Exactly(2), d)
	if again := f.mustAppend(s, eventstore.Exactly(0), bc); again != orig {
		f.t.Errorf("late retry result = %+v, want the original %+v", again, orig)
	}

	all := append(append(append([]eventstore.EventData{}, a...), bc...), d...)
	f.checkEvents("ReadStream", f.readStream(s, 0, 0), seq(s, 0, all))
	f.checkEvents("ReadAll", f.readAllOurs(eventstore.Start), seq(s, 0, all))
}

func testRetryAny(f *fixture) {
	s := f.stream("a")
	a, b := events(1, "a"), events(2, "b")
	f.mustAppend(s, eventstore.Any(), a)
	orig := f.mustAppend(s, eventstore.Any(), b)
	if again := f.mustAppend(s, eventstore.Any(), b); again != orig {
		f.t.Errorf("retry result = %+v, want the original %+v", again, orig)
	}
	all := append(append([]eventstore.EventData{}, a...), b...)
	f.checkEvents("ReadStream", f.readStream(s, 0, 0), seq(s, 0, all))
	f.checkEvents("ReadAll", f.readAllOurs(eventstore.Start), seq(s, 0, all))
}

func testDifferentIDAtOldRevision(f *fixture) {
	s := f.stream("a")
	stored := events(3, "stored")
	f.mustAppend(s, eventstore.NoStream(), stored)
	x := events(1, "x")

	_, err := f.store.Append(f.ctx, s, eventstore.NoStream(), x)
	f.wantWrongVersion(err, s, eventstore.NoStream(), 2)
	_, err = f.store.Append(f.ctx, s, eventstore.Exactly(0), x)
	f.wantWrongVersion(err, s, eventstore.Exactly(0), 2)
	// The first id matches the event after revision 0, the second does not.
	partial := []eventstore.EventData{stored[1], x[0]}
	_, err = f.store.Append(f.ctx, s, eventstore.Exactly(0), partial)
	f.wantWrongVersion(err, s, eventstore.Exactly(0), 2)

	f.checkEvents("ReadStream", f.readStream(s, 0, 0), seq(s, 0, stored))
	f.checkEvents("ReadAll", f.readAllOurs(eventstore.Start), seq(s, 0, stored))
}
