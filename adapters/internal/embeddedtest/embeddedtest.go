// Package embeddedtest is the suite the two embedded event stores
// (adapters/logstore and adapters/boltstore) share beyond the contract suite
// every store passes (adapters/storetest): what an embedded store promises
// because it is one process's own files — durability across reopen and
// Close, the single writer's group commit, the lock, its counters — and its
// crash and disk-full tests. A store's own file format (torn writes,
// corruption, foreign files, its directory layout) is tested in its package.
//
// Unlike storetest, these tests assume a store of their own: positions start
// at 1 in an empty store.
package embeddedtest

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"turnstile/adapters/internal/storekit"
	"turnstile/domain/eventstore"
)

// Deadline only turns a hang into a failure.
const Deadline = time.Minute

// Store is an embedded store as the suite sees it.
type Store interface {
	eventstore.Store
	Stats() storekit.Stats
}

// Append is one append of a batch handed to a store's writer directly.
type Append struct {
	Stream   string
	Expected eventstore.ExpectedVersion
	Events   []eventstore.EventData
}

// Result is the writer's answer to one Append of a batch.
type Result struct {
	Res eventstore.AppendResult
	Err error
}

// Kind describes one embedded store to the suite.
type Kind struct {
	// File is the name the store is opened at inside a fresh directory.
	File string
	// Open opens, creating on first use, the store at path with its default
	// options.
	Open func(path string) (Store, error)
	// OpenShortLock opens the store at path waiting only briefly for
	// another holder of the lock.
	OpenShortLock func(path string) (Store, error)
	// CommitBatch builds each append's request as Append would and hands
	// them all to the writer as one batch (one commit), bypassing its queue.
	CommitBatch func(ctx context.Context, s Store, batch []Append) ([]Result, error)
	// ErrInvalid and ErrLocked are the store's sentinels.
	ErrInvalid, ErrLocked error
}

// Run runs every test of the suite as a subtest of t.
func Run(t *testing.T, k Kind) {
	for _, c := range []struct {
		name string
		fn   func(*testing.T, Kind)
	}{
		{"ReopenKeepsEverything", testReopenKeepsEverything},
		{"WrongExpectedVersionActual", testWrongExpectedVersionActual},
		{"AnyRetryRules", testAnyRetryRules},
		{"BatchSemantics", testBatchSemantics},
		{"InvalidInput", testInvalidInput},
		{"CloseWaitsForAppends", testCloseWaitsForAppends},
		{"BlockedRecvEndsOnClose", testBlockedRecvEndsOnClose},
		{"SubscriptionScansPastOtherStreams", testSubscriptionScansPastOtherStreams},
		{"OpenRefusesLockedFile", testOpenRefusesLockedFile},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, k) })
	}
}

// Ctx returns a context that ends with the test or after Deadline.
func Ctx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), Deadline)
	t.Cleanup(cancel)
	return ctx
}

// NewEvents returns n events with fresh ids.
func NewEvents(n int) []eventstore.EventData {
	out := make([]eventstore.EventData, n)
	for i := range out {
		out[i] = eventstore.EventData{ID: uuid.New(), Type: "test.event", Data: fmt.Appendf(nil, `{"i":%d}`, i)}
	}
	return out
}

// MustAppend appends evs or fails the test.
func MustAppend(t testing.TB, s eventstore.Store, stream string, exp eventstore.ExpectedVersion, evs []eventstore.EventData) eventstore.AppendResult {
	t.Helper()
	res, err := s.Append(Ctx(t), stream, exp, evs)
	if err != nil {
		t.Fatalf("Append(%s, %s): %v", stream, exp, err)
	}
	return res
}

// MustReadAll reads the whole log or fails the test.
func MustReadAll(t testing.TB, s eventstore.Store) []eventstore.RecordedEvent {
	t.Helper()
	evs, err := s.ReadAll(Ctx(t), eventstore.Start, 0)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// path returns a path for a new store of kind k in a fresh directory.
func (k Kind) path(t testing.TB) string { return filepath.Join(t.TempDir(), k.File) }

// open opens the store at path or fails the test.
func (k Kind) open(t testing.TB, path string) Store {
	t.Helper()
	s, err := k.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Opened returns s as a Store, or a nil Store with err: a store's Open
// returns a typed nil pointer on error, which must not become a non-nil
// interface.
func Opened[S Store](s S, err error) (Store, error) {
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Batch builds a request for each append with build, hands them all to
// commit as one batch and collects each answer with answer, in order.
func Batch[R any](batch []Append, build func(Append) (R, error), commit func([]R), answer func(R) Result) ([]Result, error) {
	reqs := make([]R, len(batch))
	for i, a := range batch {
		r, err := build(a)
		if err != nil {
			return nil, err
		}
		reqs[i] = r
	}
	commit(reqs)
	out := make([]Result, len(reqs))
	for i, r := range reqs {
		out[i] = answer(r)
	}
	return out, nil
}
