package logstore

import (
	"errors"
	"testing"
	"time"

	"turnstile/adapters/internal/embeddedtest"
	"turnstile/domain/eventstore"
)

// TestImportKeepsEverything imports a log read from another store: ids,
// streams, revisions, positions, data, metadata and creation times come
// out as they went in, in few group commits. Importing the same events
// again (no longer the log's next positions) fails and adds nothing; the
// control is the first import.
func TestImportKeepsEverything(t *testing.T) {
	src := openTemp(t, Options{})
	defer src.Close()
	for i := range 30 {
		stream := []string{"turn-a", "turn-b", "credentials"}[i%3]
		evs := embeddedtest.NewEvents(1 + i%2)
		evs[0].Metadata = []byte(`{"m":1}`)
		exp := eventstore.Any()
		embeddedtest.MustAppend(t, src, stream, exp, evs)
	}
	want := embeddedtest.MustReadAll(t, src)
	for i := range want {
		// Distinct times, so that keeping them is visible.
		want[i].Created = time.Unix(1_700_000_000+int64(i), 0)
	}

	dst := openTemp(t, Options{})
	defer dst.Close()
	if err := dst.Import(embeddedtest.Ctx(t), want); err != nil {
		t.Fatal(err)
	}
	got := embeddedtest.MustReadAll(t, dst)
	if len(got) != len(want) {
		t.Fatalf("%d events imported, want %d", len(got), len(want))
	}
	for i := range want {
		w, g := want[i], got[i]
		if g.ID != w.ID || g.Stream != w.Stream || g.Revision != w.Revision || g.Position != w.Position || g.Type != w.Type ||
			string(g.Data) != string(w.Data) || string(g.Metadata) != string(w.Metadata) || !g.Created.Equal(w.Created) {
			t.Fatalf("event %d: %+v, want %+v", i, g, w)
		}
	}
	if c := dst.Stats().Commits; c >= uint64(len(want)) {
		t.Errorf("%d commits for %d events: the import was not grouped", c, len(want))
	}
	if err := dst.Import(embeddedtest.Ctx(t), want); !errors.Is(err, ErrInvalid) && !errors.As(err, new(*eventstore.WrongExpectedVersionError)) {
		t.Fatalf("importing the same events again: %v; want a refusal", err)
	}
	if n := len(embeddedtest.MustReadAll(t, dst)); n != len(want) {
		t.Fatalf("a refused import left %d events, want %d", n, len(want))
	}
}
