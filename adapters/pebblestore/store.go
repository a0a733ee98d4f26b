// Package pebblestore is an embedded event store on a Pebble LSM
// (github.com/cockroachdb/pebble/v2): durable on acknowledge through one
// synced write-ahead-log append per group commit. It implements
// eventstore.Store with the same semantics, record format and group-commit
// writer as adapters/boltstore; it exists to measure an LSM with a
// group-committing WAL against the bbolt store (docs/benchmarks.md).
//
// # Durability and group commit
//
// One writer goroutine folds every append waiting when it starts (up to
// Options.MaxBatch) into one indexed Pebble batch and commits it with
// pebble.Sync: one WAL write and one fdatasync. An append returns only after
// its batch is committed. A torn WAL tail (a crash mid-write) is detected by
// Pebble's record checksums on open and the partial batch is discarded; it
// was never acknowledged.
//
// # Keys
//
//	"f"                   → formatVersion
//	"l" position (8, BE)  → event record (see record.go)
//	"s" stream name       → stream id (8), written when the stream is created;
//	                        the id is the position of its first event
//	"i" sid (8) rev (8)   → position (8) | event id (16)
package pebblestore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"golang.org/x/sys/unix"

	"turnstile/domain/eventstore"
)

// formatVersion names the key layout; Open refuses stores of another format.
const formatVersion = "turnstile-events-pebble/1"

// Defaults of Options.
const (
	DefaultMaxBatch    = 256
	DefaultLockTimeout = 2 * time.Second
)

// Key prefixes.
const (
	pfxFormat = 'f'
	pfxLog    = 'l'
	pfxStream = 's'
	pfxIndex  = 'i'
)

// ErrLocked is returned by Open when another process holds the store.
var ErrLocked = errors.New("pebblestore: store is in use by another process")

// ErrFormat is returned by Open when the directory is not an event store of
// this format.
var ErrFormat = errors.New("pebblestore: unknown store format")

// ErrInvalid is wrapped by the errors of appends refused for bad input.
var ErrInvalid = errors.New("pebblestore: invalid append")

// ErrCorrupt is wrapped by errors that report an inconsistent store.
var ErrCorrupt = errors.New("pebblestore: corrupt store")

// Options tunes a Store. The zero value gives the defaults.
type Options struct {
	// MaxBatch is the most appends one batch (and one WAL sync) folds
	// together. Zero means DefaultMaxBatch.
	MaxBatch int
	// LockTimeout is how long Open waits for another process to release
	// the store. Zero means DefaultLockTimeout.
	LockTimeout time.Duration
}

// Store is the Pebble event store. It is safe for concurrent use.
type Store struct {
	db       *pebble.DB
	dir      string
	maxBatch int

	// mu orders Close against every other operation, as in boltstore.
	mu     sync.RWMutex
	closed bool

	reqs       chan *appendReq
	writerDone chan struct{}
	closing    chan struct{}

	// committed is the last position of the last committed batch.
	committed atomic.Uint64
	wakeMu    sync.Mutex
	wake      chan struct{}

	commits, appends, events atomic.Uint64
	waiting                  atomic.Int64
}

// Stats are counters of a Store since Open.
type Stats struct {
	// Commits is the number of synced batches.
	Commits uint64
	// Appends is the number of appends that wrote events.
	Appends uint64
	// Events is the number of events written.
	Events uint64
	// WaitingSubscribers is the number of subscriptions waiting for a
	// commit.
	WaitingSubscribers int64
}

// Stats returns the store's counters.
func (s *Store) Stats() Stats {
	return Stats{Commits: s.commits.Load(), Appends: s.appends.Load(), Events: s.events.Load(), WaitingSubscribers: s.waiting.Load()}
}

var _ eventstore.Store = (*Store)(nil)

// Open opens the store in directory dir, creating it (mode 0700) on first
// use. Only one process can have it open; another Open fails with ErrLocked
// after Options.LockTimeout.
func Open(dir string, opts Options) (*Store, error) {
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = DefaultMaxBatch
	}
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = DefaultLockTimeout
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("pebblestore: create directory: %w", err)
	}
	po := &pebble.Options{Logger: quietLogger{}}
	deadline := time.Now().Add(opts.LockTimeout)
	var db *pebble.DB
	for {
		var err error
		db, err = pebble.Open(dir, po)
		if err == nil {
			break
		}
		if !isLockErr(err) {
			return nil, fmt.Errorf("pebblestore: open %s: %w", dir, err)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%w: %s", ErrLocked, dir)
		}
		time.Sleep(20 * time.Millisecond)
	}
	last, err := initStore(db)
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("pebblestore: open %s: %w", dir, err)
	}
	s := &Store{
		db:         db,
		dir:        dir,
		maxBatch:   opts.MaxBatch,
		reqs:       make(chan *appendReq, opts.MaxBatch),
		writerDone: make(chan struct{}),
		closing:    make(chan struct{}),
		wake:       make(chan struct{}),
	}
	s.committed.Store(last)
	go s.writer()
	return s, nil
}

// isLockErr reports whether Open failed because the LOCK file is held (by
// another process: EAGAIN/EACCES from fcntl; by this one: Pebble's own
// message).
func isLockErr(err error) bool {
	return errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EACCES) ||
		strings.Contains(err.Error(), "lock held by current process")
}

// initStore writes the format key of a new store, checks that of an
// existing one, and returns the last position.
func initStore(db *pebble.DB) (uint64, error) {
	v, c, err := db.Get([]byte{pfxFormat})
	switch {
	case errors.Is(err, pebble.ErrNotFound):
		if last, err := lastPosition(db); err != nil || last != 0 {
			return 0, ErrFormat
		}
		return 0, db.Set([]byte{pfxFormat}, []byte(formatVersion), pebble.Sync)
	case err != nil:
		return 0, err
	}
	got := string(v)
	_ = c.Close()
	if got != formatVersion {
		return 0, fmt.Errorf("%w: %q", ErrFormat, got)
	}
	return lastPosition(db)
}

type reader interface {
	NewIter(*pebble.IterOptions) (*pebble.Iterator, error)
}

// lastPosition returns the greatest position in the log (0 when empty).
func lastPosition(r reader) (uint64, error) {
	it, err := r.NewIter(&pebble.IterOptions{LowerBound: []byte{pfxLog}, UpperBound: []byte{pfxLog + 1}})
	if err != nil {
		return 0, err
	}
	defer it.Close()
	if !it.Last() {
		return 0, it.Error()
	}
	k := it.Key()
	if len(k) != 9 {
		return 0, fmt.Errorf("%w: bad log key", ErrCorrupt)
	}
	return binary.BigEndian.Uint64(k[1:]), nil
}

// Path returns the store's directory.
func (s *Store) Path() string { return s.dir }

// Ping reports whether the store is open.
func (s *Store) Ping(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return eventstore.ErrClosed
	}
	return nil
}

// Close waits for queued appends, ends every subscription and closes the
// store. Later calls return ErrClosed.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return eventstore.ErrClosed
	}
	s.closed = true
	close(s.reqs)
	close(s.closing)
	s.mu.Unlock()
	<-s.writerDone
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("pebblestore: close %s: %w", s.dir, err)
	}
	return nil
}

func (s *Store) watch() <-chan struct{} {
	s.wakeMu.Lock()
	defer s.wakeMu.Unlock()
	return s.wake
}

func (s *Store) published(last uint64) {
	s.committed.Store(last)
	s.wakeMu.Lock()
	close(s.wake)
	s.wake = make(chan struct{})
	s.wakeMu.Unlock()
}

// quietLogger drops Pebble's informational logging and keeps fatal
// errors fatal.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any)      {}
func (quietLogger) Errorf(f string, a ...any) { fmt.Fprintf(os.Stderr, "pebble: "+f+"\n", a...) }
func (quietLogger) Fatalf(f string, a ...any) { panic(fmt.Sprintf("pebble: "+f, a...)) }
