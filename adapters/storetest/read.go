package storetest

import (
	"github.com/google/uuid"

	"turnstile/domain/eventstore"
)

func readCases() []testCase {
	return []testCase{
		{"ReadStreamFromAndMax", testReadStreamFromAndMax},
		{"ReadStreamMissing", testReadStreamMissing},
		{"ReadAllFromStart", testReadAllFromStart},
		{"ReadAllFromPosition", testReadAllFromPosition},
	}
}

func testReadStreamFromAndMax(f *fixture) {
	s := f.stream("a")
	first, second := events(4, "first"), events(6, "second")
	f.mustAppend(s, eventstore.NoStream(), first)
	f.mustAppend(s, eventstore.Exactly(3), second)
	all := seq(s, 0, append(append([]eventstore.EventData{}, first...), second...))

	f.checkEvents("ReadStream(0, 0)", f.readStream(s, 0, 0), all)
	f.checkEvents("ReadStream(0, -1)", f.readStream(s, 0, -1), all)
	f.checkEvents("ReadStream(4, 0)", f.readStream(s, 4, 0), all[4:])
	f.checkEvents("ReadStream(4, 3)", f.readStream(s, 4, 3), all[4:7])
	f.checkEvents("ReadStream(0, 1)", f.readStream(s, 0, 1), all[:1])
	f.checkEvents("ReadStream(9, 5)", f.readStream(s, 9, 5), all[9:])
	f.checkEvents("ReadStream(0, 100)", f.readStream(s, 0, 100), all)
	for _, from := range []uint64{10, 11, 1 << 40} {
		if got := f.readStream(s, from, 0); len(got) != 0 {
			f.t.Errorf("ReadStream(%d) past the end: %d events", from, len(got))
		}
	}
}

func testReadStreamMissing(f *fixture) {
	f.mustAppend(f.stream("other"), eventstore.NoStream(), events(1, "other"))
	for _, from := range []uint64{0, 5} {
		got, err := f.store.ReadStream(f.ctx, f.stream("missing"), from, 0)
		if err != nil {
			f.t.Fatalf("ReadStream(missing, %d): %v", from, err)
		}
		if len(got) != 0 {
			f.t.Fatalf("ReadStream(missing, %d): %d events", from, len(got))
		}
	}
}

// appendInterleaved writes A[a0] B[b0 b1] A[a1] C[c0] B[b2] and returns the
// expected commit order with the append results of each call.
func appendInterleaved(f *fixture) ([]want, []eventstore.AppendResult) {
	f.t.Helper()
	a, b, c := f.stream("a"), f.stream("b"), f.stream("c")
	steps := []struct {
		stream string
		exp    eventstore.ExpectedVersion
		first  uint64
		n      int
	}{
		{a, eventstore.NoStream(), 0, 1},
		{b, eventstore.NoStream(), 0, 2},
		{a, eventstore.Exactly(0), 1, 1},
		{c, eventstore.Any(), 0, 1},
		{b, eventstore.Exactly(1), 2, 1},
	}
	var wants []want
	var results []eventstore.AppendResult
	for _, st := range steps {
		evs := events(st.n, st.stream)
		results = append(results, f.mustAppend(st.stream, st.exp, evs))
		wants = append(wants, seq(st.stream, st.first, evs)...)
	}
	return wants, results
}

func testReadAllFromStart(f *fixture) {
	wants, results := appendInterleaved(f)
	got := f.readAllOurs(eventstore.Start)
	f.checkEvents("ReadAll(Start)", got, wants)

	// Positions agree with ReadStream and with the append results.
	byID := map[uuid.UUID]eventstore.Position{}
	for _, e := range got {
		byID[e.ID] = e.Position
	}
	for _, s := range []string{f.stream("a"), f.stream("b"), f.stream("c")} {
		for _, e := range f.readStream(s, 0, 0) {
			if byID[e.ID] != e.Position {
				f.t.Errorf("%s@%d: ReadStream position %s, ReadAll position %s", s, e.Revision, e.Position, byID[e.ID])
			}
		}
	}
	lastOfCall := []int{0, 2, 3, 4, 5}
	for i, r := range results {
		if w := got[lastOfCall[i]]; r.Position != w.Position || r.NextExpectedRevision != w.Revision {
			f.t.Errorf("append %d: result %+v, want position %s revision %d", i, r, w.Position, w.Revision)
		}
	}
}

func testReadAllFromPosition(f *fixture) {
	wants, _ := appendInterleaved(f)
	got := f.readAllOurs(eventstore.Start)
	f.checkEvents("ReadAll(Start)", got, wants)

	// Exclusive of the start position: from b1 (index 2) we see a1 c0 b2.
	from := got[2].Position
	f.checkEvents("ReadAll(b1)", f.readAllOurs(from), wants[3:])
	if rest := f.readAllOurs(got[len(got)-1].Position); len(rest) != 0 {
		f.t.Errorf("ReadAll(last position) returned %d of our events: %s", len(rest), describe(rest))
	}

	// max bounds the page; the first page equals the head of the full read.
	full, err := f.store.ReadAll(f.ctx, from, 0)
	if err != nil {
		f.t.Fatalf("ReadAll(b1, 0): %v", err)
	}
	page, err := f.store.ReadAll(f.ctx, from, 2)
	if err != nil {
		f.t.Fatalf("ReadAll(b1, 2): %v", err)
	}
	if len(page) != 2 || len(full) < 3 {
		f.t.Fatalf("ReadAll(b1, 2) returned %d events, ReadAll(b1, 0) %d; want 2 and at least 3", len(page), len(full))
	}
	for i := range page {
		if page[i].ID != full[i].ID || page[i].Position != full[i].Position {
			f.t.Errorf("page[%d] = %s at %s, want %s at %s", i, page[i].ID, page[i].Position, full[i].ID, full[i].Position)
		}
	}

	// Paging one event at a time from a0 reproduces the order.
	var paged []eventstore.RecordedEvent
	pos := got[0].Position
	for len(paged) < len(wants)-1 {
		evs, err := f.store.ReadAll(f.ctx, pos, 1)
		if err != nil {
			f.t.Fatalf("ReadAll(%s, 1): %v", pos, err)
		}
		if len(evs) != 1 {
			f.t.Fatalf("ReadAll(%s, 1) returned %d events before the end of our events", pos, len(evs))
		}
		if !pos.Less(evs[0].Position) {
			f.t.Fatalf("ReadAll(%s, 1) returned position %s", pos, evs[0].Position)
		}
		pos = evs[0].Position
		if f.ours(evs[0].Stream) {
			paged = append(paged, evs[0])
		}
	}
	f.checkEvents("ReadAll paged by 1", paged, wants[1:])
}
