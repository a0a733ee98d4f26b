// Package eventstore is the port through which turnstile's core talks to an
// append-only event store. Two adapters implement it (the embedded bbolt
// store and the EventStoreDB/KurrentDB store, both under adapters/), and both
// pass the same contract suite (adapters/storetest).
//
// The semantics follow EventStoreDB's, so that the two adapters are
// interchangeable:
//
//   - A stream's revisions start at 0 and have no gaps. A stream that has
//     never been written to does not exist; reading it yields no events.
//   - Append takes an expected version: NoStream (the stream must not exist),
//     Any (no check), or Exactly(n) (the stream's last revision must be n).
//     A mismatch is a *WrongExpectedVersionError and writes nothing.
//   - Idempotent retries: an append whose event ids equal the ids of the
//     events already stored right after the expected version (NoStream counts
//     as "before revision 0") succeeds with the original result and writes
//     nothing. A different id at an old revision is a wrong expected version.
//   - Every stored event has a global position, strictly increasing in commit
//     order across all streams. Subscriptions and ReadAll "from" a position are
//     exclusive of it; Start means "before the first event".
package eventstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// ExpectedVersion is the optimistic-concurrency condition of an append.
// The zero value is unset, and every store refuses it (ErrNoExpectedVersion):
// forgetting to choose cannot turn concurrency control off. Any, NoStream
// and Exactly are the three conditions a caller can choose.
type ExpectedVersion struct {
	kind expectedKind
	rev  uint64
}

type expectedKind uint8

const (
	expectUnset expectedKind = iota
	expectAny
	expectNoStream
	expectRevision
)

// Any appends without a version check.
func Any() ExpectedVersion { return ExpectedVersion{kind: expectAny} }

// NoStream appends only when the stream does not exist yet.
func NoStream() ExpectedVersion { return ExpectedVersion{kind: expectNoStream} }

// Exactly appends only when the stream's last revision is rev.
func Exactly(rev uint64) ExpectedVersion { return ExpectedVersion{kind: expectRevision, rev: rev} }

// IsAny reports whether e is Any.
func (e ExpectedVersion) IsAny() bool { return e.kind == expectAny }

// IsNoStream reports whether e is NoStream.
func (e ExpectedVersion) IsNoStream() bool { return e.kind == expectNoStream }

// Revision returns the expected revision and true when e is Exactly(n).
func (e ExpectedVersion) Revision() (uint64, bool) { return e.rev, e.kind == expectRevision }

// ErrNoExpectedVersion is the error of an append whose expected version was
// never chosen (the zero ExpectedVersion).
var ErrNoExpectedVersion = errors.New("eventstore: append without an expected version (choose Any, NoStream or Exactly)")

// Check returns ErrNoExpectedVersion for the zero ExpectedVersion and nil
// for a chosen one. Every store calls it before an append.
func (e ExpectedVersion) Check() error {
	if e.kind == expectUnset {
		return ErrNoExpectedVersion
	}
	return nil
}

// String renders e for errors and logs.
func (e ExpectedVersion) String() string {
	switch e.kind {
	case expectNoStream:
		return "no_stream"
	case expectRevision:
		return strconv.FormatUint(e.rev, 10)
	case expectAny:
		return "any"
	default:
		return "unset"
	}
}

// EventData is one event to append. ID must be set by the caller (never
// uuid.Nil): it is what makes a retried append recognisably the same.
type EventData struct {
	ID       uuid.UUID
	Type     string
	Data     []byte
	Metadata []byte
}

// Position is a global position in the store's log. The embedded store uses
// equal Commit and Prepare values; EventStoreDB reports both.
type Position struct {
	Commit  uint64
	Prepare uint64
}

// Start is the position before the first event of the log.
var Start = Position{}

// Less reports whether p comes before q in the log.
func (p Position) Less(q Position) bool {
	if p.Commit != q.Commit {
		return p.Commit < q.Commit
	}
	return p.Prepare < q.Prepare
}

// String renders p as "C" when Commit == Prepare, else "C-P". It is the form
// used as a Server-Sent Events id; ParsePosition reads it back.
func (p Position) String() string {
	if p.Commit == p.Prepare {
		return strconv.FormatUint(p.Commit, 10)
	}
	return strconv.FormatUint(p.Commit, 10) + "-" + strconv.FormatUint(p.Prepare, 10)
}

// ParsePosition parses the form written by Position.String.
func ParsePosition(s string) (Position, error) {
	c, p, found := strings.Cut(strings.TrimSpace(s), "-")
	commit, err := strconv.ParseUint(c, 10, 64)
	if err != nil {
		return Position{}, fmt.Errorf("eventstore: bad position %q", s)
	}
	if !found {
		return Position{Commit: commit, Prepare: commit}, nil
	}
	prepare, err := strconv.ParseUint(p, 10, 64)
	if err != nil {
		return Position{}, fmt.Errorf("eventstore: bad position %q", s)
	}
	return Position{Commit: commit, Prepare: prepare}, nil
}

// RecordedEvent is an event as stored.
type RecordedEvent struct {
	ID       uuid.UUID
	Stream   string
	Revision uint64
	Position Position
	Type     string
	Data     []byte
	Metadata []byte
	Created  time.Time // when the store wrote it (informational only)
}

// AppendResult describes a successful append (or the original result of an
// idempotent retry).
type AppendResult struct {
	// NextExpectedRevision is the stream's last revision after the append.
	NextExpectedRevision uint64
	// Position is the global position of the last event appended.
	Position Position
}

// AppendTooLargeError is a write the store refuses for its size: an
// EventStoreDB or KurrentDB cluster takes at most MaxAppendSize bytes in
// one append (1 MiB unless its operator raised it), and a turn's security
// snapshot may be larger (each writable root adds the protected list).
type AppendTooLargeError struct {
	Stream string
	Limit  int64 // the store's largest append in bytes, 0 when it did not say
}

func (e *AppendTooLargeError) Error() string {
	return fmt.Sprintf("eventstore: the write to %s is larger than the store's largest append (%d bytes)", e.Stream, e.Limit)
}

// WrongExpectedVersionError reports an append whose expected version did not
// hold. Actual is the stream's last revision, or -1 when it does not exist,
// or -2 when the store did not say.
type WrongExpectedVersionError struct {
	Stream   string
	Expected ExpectedVersion
	Actual   int64
}

func (e *WrongExpectedVersionError) Error() string {
	actual := strconv.FormatInt(e.Actual, 10)
	switch e.Actual {
	case -1:
		actual = "no stream"
	case -2:
		actual = "unknown"
	}
	return fmt.Sprintf("eventstore: wrong expected version on %s: expected %s, actual %s", e.Stream, e.Expected, actual)
}

// ErrUnavailable is wrapped by errors that mean the store cannot be reached
// (or did not answer before the deadline). The API maps it to 503.
var ErrUnavailable = errors.New("event store unavailable")

// ErrClosed is returned by operations on a closed store or subscription.
var ErrClosed = errors.New("event store closed")

// Store is the event store port.
type Store interface {
	// Append writes events to stream atomically if expected holds.
	Append(ctx context.Context, stream string, expected ExpectedVersion, events []EventData) (AppendResult, error)
	// ReadStream returns up to max events of stream with revision >= from, in
	// order. A missing stream yields no events and no error. max <= 0 means
	// no limit.
	ReadStream(ctx context.Context, stream string, from uint64, max int) ([]RecordedEvent, error)
	// ReadAll returns up to max events of the whole log strictly after from,
	// in order. max <= 0 means no limit. Only user streams are returned.
	ReadAll(ctx context.Context, from Position, max int) ([]RecordedEvent, error)
	// Subscribe delivers every event of streams whose name starts with prefix
	// (all streams when prefix is empty), strictly after from, first the
	// stored ones, then a CaughtUp message, then live ones as they are
	// committed.
	Subscribe(ctx context.Context, from Position, prefix string) (Subscription, error)
	// Ping reports whether the store is reachable.
	Ping(ctx context.Context) error
	// Close releases the store. Further calls return ErrClosed.
	Close() error
}

// Message is one item of a subscription: an event, or a caught-up marker
// (Event == nil, CaughtUp == true) once the stored events have been delivered.
type Message struct {
	Event    *RecordedEvent
	CaughtUp bool
}

// Subscription is a live, ordered feed of events.
type Subscription interface {
	// Recv blocks for the next message. It returns an error when ctx ends,
	// the subscription is closed (ErrClosed) or dropped (any other error; the
	// caller resubscribes from the last position it applied).
	Recv(ctx context.Context) (Message, error)
	// Close ends the subscription.
	Close() error
}
