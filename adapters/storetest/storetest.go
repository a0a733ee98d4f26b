// Package storetest is the contract suite every eventstore.Store adapter must
// pass. An adapter's own tests call Run with a function that opens a store:
//
//	func TestContract(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) eventstore.Store {
//			s, err := boltstore.Open(filepath.Join(t.TempDir(), "events.db"), boltstore.Options{})
//			if err != nil {
//				t.Fatal(err)
//			}
//			return s
//		})
//	}
//
// The suite checks the semantics fixed by the port's package comment:
// expected versions, wrong-expected-version errors that write nothing,
// idempotent retries, reads by stream and across the log, catch-up
// subscriptions, concurrency, and behaviour after Close.
//
// The suite never assumes an empty log: every subtest names its streams with
// a fresh random namespace and looks only at its own events, so open may
// return a store shared with other data (an EventStoreDB server, say). It does
// assume that positions of the events it reads are strictly increasing across
// the whole log. It makes no timed assertions; a generous deadline only turns
// a hang into a failure.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"turnstile/domain/eventstore"
)

// HangTimeout is the deadline of every subtest's context. It detects hangs;
// it is never a performance assertion.
const HangTimeout = 2 * time.Minute

// Opener returns a ready store for one subtest. The suite closes the store
// when the subtest ends (and tolerates ErrClosed from that Close); open
// should register any other clean-up (files, servers) with t.Cleanup.
type Opener func(t *testing.T) eventstore.Store

// Run runs every case of the contract suite as a subtest of t, each against
// a store returned by open.
func Run(t *testing.T, open Opener) {
	t.Helper()
	for _, c := range cases() {
		t.Run(c.name, func(t *testing.T) {
			c.fn(newFixture(t, open))
		})
	}
}

type testCase struct {
	name string
	fn   func(f *fixture)
}

func cases() []testCase {
	var all []testCase
	all = append(all, appendCases()...)
	all = append(all, idempotencyCases()...)
	all = append(all, readCases()...)
	all = append(all, subscribeCases()...)
	all = append(all, concurrencyCases()...)
	all = append(all, closeCases()...)
	return all
}

// fixture is one subtest's store and helpers.
type fixture struct {
	t     *testing.T
	store eventstore.Store
	ctx   context.Context
	// ns makes this subtest's stream names unique, so that a shared store
	// does not mix subtests.
	ns string
}

func newFixture(t *testing.T, open Opener) *fixture {
	t.Helper()
	s := open(t)
	if s == nil {
		t.Fatal("storetest: open returned a nil store")
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil && !errors.Is(err, eventstore.ErrClosed) {
			t.Errorf("Close: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), HangTimeout)
	t.Cleanup(cancel)
	ns := strings.ReplaceAll(uuid.NewString(), "-", "")[:16]
	return &fixture{t: t, store: s, ctx: ctx, ns: ns}
}

// stream returns a stream name unique to this subtest: "turn-<ns>-<name>".
func (f *fixture) stream(name string) string { return f.streamWithPrefix("turn-", name) }

// streamWithPrefix returns prefix + "<ns>-<name>".
func (f *fixture) streamWithPrefix(prefix, name string) string {
	return prefix + f.ns + "-" + name
}

// ours reports whether stream belongs to this subtest.
func (f *fixture) ours(stream string) bool { return strings.Contains(stream, f.ns) }

// events returns n new events with fresh ids; tag appears in their data.
func events(n int, tag string) []eventstore.EventData {
	out := make([]eventstore.EventData, n)
	for i := range out {
		out[i] = eventstore.EventData{
			ID:       uuid.New(),
			Type:     "storetest.event",
			Data:     fmt.Appendf(nil, `{"tag":%q,"i":%d}`, tag, i),
			Metadata: fmt.Appendf(nil, `{"suite":"storetest","i":%d}`, i),
		}
	}
	return out
}

func (f *fixture) mustAppend(stream string, exp eventstore.ExpectedVersion, evs []eventstore.EventData) eventstore.AppendResult {
	f.t.Helper()
	res, err := f.store.Append(f.ctx, stream, exp, evs)
	if err != nil {
		f.t.Fatalf("Append(%s, %s, %d events): %v", stream, exp, len(evs), err)
	}
	return res
}

// wantWrongVersion fails unless err is a *WrongExpectedVersionError for
// stream whose Actual is actual or -2 (the store did not say).
func (f *fixture) wantWrongVersion(err error, stream string, exp eventstore.ExpectedVersion, actual int64) {
	f.t.Helper()
	if err == nil {
		f.t.Fatalf("Append(%s, %s): no error, want *WrongExpectedVersionError", stream, exp)
	}
	var wev *eventstore.WrongExpectedVersionError
	if !errors.As(err, &wev) {
		f.t.Fatalf("Append(%s, %s): error %v (%T), want *WrongExpectedVersionError", stream, exp, err, err)
	}
	if wev.Stream != stream {
		f.t.Errorf("WrongExpectedVersionError.Stream = %q, want %q", wev.Stream, stream)
	}
	if wev.Expected != exp {
		f.t.Errorf("WrongExpectedVersionError.Expected = %s, want %s", wev.Expected, exp)
	}
	if wev.Actual != actual && wev.Actual != -2 {
		f.t.Errorf("WrongExpectedVersionError.Actual = %d, want %d (or -2 when unknown)", wev.Actual, actual)
	}
}

func (f *fixture) readStream(stream string, from uint64, max int) []eventstore.RecordedEvent {
	f.t.Helper()
	evs, err := f.store.ReadStream(f.ctx, stream, from, max)
	if err != nil {
		f.t.Fatalf("ReadStream(%s, %d, %d): %v", stream, from, max, err)
	}
	return evs
}

// readAll reads the whole log after from in pages and checks that
// positions are strictly increasing.
func (f *fixture) readAll(from eventstore.Position) []eventstore.RecordedEvent {
	f.t.Helper()
	const page = 500
	var out []eventstore.RecordedEvent
	for {
		evs, err := f.store.ReadAll(f.ctx, from, page)
		if err != nil {
			f.t.Fatalf("ReadAll(%s, %d): %v", from, page, err)
		}
		if len(evs) > page {
			f.t.Fatalf("ReadAll(%s, %d) returned %d events", from, page, len(evs))
		}
		for _, e := range evs {
			if !from.Less(e.Position) {
				f.t.Fatalf("ReadAll(%s): event at %s is not strictly after the previous one / the start", from, e.Position)
			}
			from = e.Position
		}
		out = append(out, evs...)
		if len(evs) < page {
			return out
		}
	}
}

// readAllOurs is readAll filtered to this subtest's streams.
func (f *fixture) readAllOurs(from eventstore.Position) []eventstore.RecordedEvent {
	f.t.Helper()
	var out []eventstore.RecordedEvent
	for _, e := range f.readAll(from) {
		if f.ours(e.Stream) {
			out = append(out, e)
		}
	}
	return out
}

// want is an expected stored event.
type want struct {
	stream string
	rev    uint64
	data   eventstore.EventData
}

// checkEvents compares got with want field by field and checks positions
// are strictly increasing.
func (f *fixture) checkEvents(what string, got []eventstore.RecordedEvent, wants []want) {
	f.t.Helper()
	if len(got) != len(wants) {
		f.t.Fatalf("%s: got %d events, want %d\n got: %s", what, len(got), len(wants), describe(got))
	}
	for i, w := range wants {
		g := got[i]
		if g.ID != w.data.ID || g.Stream != w.stream || g.Revision != w.rev {
			f.t.Fatalf("%s[%d]: got %s@%d id %s, want %s@%d id %s", what, i, g.Stream, g.Revision, g.ID, w.stream, w.rev, w.data.ID)
		}
		if g.Type != w.data.Type || string(g.Data) != string(w.data.Data) || string(g.Metadata) != string(w.data.Metadata) {
			f.t.Errorf("%s[%d]: type/data/metadata = %q %q %q, want %q %q %q", what, i, g.Type, g.Data, g.Metadata, w.data.Type, w.data.Data, w.data.Metadata)
		}
		if g.Created.IsZero() {
			f.t.Errorf("%s[%d]: Created is zero", what, i)
		}
		if i > 0 && !got[i-1].Position.Less(g.Position) {
			f.t.Errorf("%s[%d]: position %s not after %s", what, i, g.Position, got[i-1].Position)
		}
	}
}

// seq returns the wants for evs appended to stream starting at revision first.
func seq(stream string, first uint64, evs []eventstore.EventData) []want {
	out := make([]want, len(evs))
	for i, e := range evs {
		out[i] = want{stream: stream, rev: first + uint64(i), data: e}
	}
	return out
}

func describe(evs []eventstore.RecordedEvent) string {
	var b strings.Builder
	for _, e := range evs {
		fmt.Fprintf(&b, "[%s@%d pos %s id %s] ", e.Stream, e.Revision, e.Position, e.ID)
	}
	return b.String()
}
