// Package logstore is turnstile's embedded event store as an append-only
// segment log: one directory, zero set-up, durable on acknowledge, with group
// commit that costs one write and one fdatasync. It implements
// eventstore.Store with the semantics of that package's comment and passes
// the same contract suite as the bbolt store (adapters/boltstore).
//
// # Durability and group commit
//
// One writer goroutine owns every write. It folds all appends waiting at the
// moment it starts (up to Options.MaxBatch) into one frame (record.go): a
// header with a CRC-32C over the whole frame, then the records. The frame is
// written with one pwrite at the end of the active segment and made durable
// with one fdatasync; only then are the appends acknowledged and the
// in-memory index and subscriptions updated. Every request gets its own
// result: a wrong expected version fails only that request, and requests
// later in a frame see the effects of earlier ones.
//
// Failures: a write that fails (ENOSPC, EIO) is rolled back with ftruncate
// to the last good size and every append of the frame fails with
// eventstore.ErrUnavailable (the API's 503); the store keeps serving reads
// and accepts appends again once the cause is gone. A failed fdatasync is
// fatal for the store instance (fail-stop): the kernel may already have
// dropped the dirty pages, so retrying it could acknowledge data that is not
// on disk. Every later append fails; reopening re-reads the log.
//
// # Files
//
// The directory holds FORMAT (formatVersion), LOCK (flock'ed by the process
// that has the store open) and segment files named by the global byte offset
// of their first frame (%020d.seg). Frames never span segments; a segment is
// closed when the next frame would take it past Options.SegmentSize, and a new
// segment file and the directory are fsynced before the first frame goes in.
//
// # Index and recovery
//
// The log is the truth. The index (position → global offset, stream →
// positions by revision) is kept in memory and rebuilt at Open by scanning
// the segments and checking every frame's checksum. A bad frame at the end of
// the last segment is a torn write: it was never acknowledged, and it is
// truncated (and logged). A bad frame followed by a valid one, or in any
// segment but the last, is corruption: Open refuses with ErrCorrupt.
package logstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"turnstile/adapters/internal/storekit"
	"turnstile/domain/eventstore"
)

// formatVersion names the directory layout; Open refuses others.
const formatVersion = "turnstile-logstore/1\n"

// Defaults of Options.
const (
	DefaultMaxBatch    = 256
	DefaultSegmentSize = 128 << 20
	DefaultLockTimeout = 2 * time.Second
)

// ErrLocked is returned by Open when another process holds the store.
var ErrLocked = errors.New("logstore: store is in use by another process")

// ErrFormat is returned by Open when the directory is not a log store of
// this format.
var ErrFormat = errors.New("logstore: unknown store format")

// ErrInvalid is wrapped by the errors of appends refused for bad input (no
// events, an event without an id or type, an empty or oversized stream name,
// an oversized event). Nothing is written.
var ErrInvalid = errors.New("logstore: invalid append")

// ErrCorrupt is wrapped by errors that report an inconsistent log.
var ErrCorrupt = errors.New("logstore: corrupt store")

// Options tunes a Store. The zero value gives the defaults.
type Options struct {
	// MaxBatch is the most appends one frame (and one fsync) folds
	// together. Zero means DefaultMaxBatch.
	MaxBatch int
	// SegmentSize is the size at which a segment is closed and the next
	// begins. Zero means DefaultSegmentSize.
	SegmentSize int64
	// LockTimeout is how long Open waits for another process to release the
	// store before failing with ErrLocked. Zero means DefaultLockTimeout.
	LockTimeout time.Duration
	// CheckpointEvery is the least number of events committed between
	// background index checkpoints (an eighth of the log when that is more;
	// see maybeCheckpoint); one is also written at Close. Zero means
	// DefaultCheckpointEvery.
	CheckpointEvery int
	// Logger receives recovery notices (a truncated torn tail). Nil means
	// slog.Default().
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.MaxBatch <= 0 {
		o.MaxBatch = DefaultMaxBatch
	}
	if o.SegmentSize <= 0 {
		o.SegmentSize = DefaultSegmentSize
	}
	if o.LockTimeout <= 0 {
		o.LockTimeout = DefaultLockTimeout
	}
	if o.CheckpointEvery <= 0 {
		o.CheckpointEvery = DefaultCheckpointEvery
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// segment is one file of the log.
type segment struct {
	// base is the global offset of the segment's first byte.
	base uint64
	f    *os.File
}

// Store is the embedded log event store. It is safe for concurrent use.
type Store struct {
	dir  string
	opts Options
	lock *os.File

	// gate orders Close against every other operation: Append holds it
	// while it queues its request, reads while they use the files.
	gate storekit.Gate

	// imu guards the index and segs. The writer is their only mutator; it
	// reads them without imu and takes the write lock to change them.
	imu sync.RWMutex
	// offs is the global offset of each record's length prefix, by
	// position.
	offs offIndex
	// streams maps a stream name to its positions, by revision.
	streams map[string]*streamIndex
	// end is the global offset after the last committed frame.
	end uint64
	// segs are the segment files, in order of base; the last is active.
	segs []*segment
	// last is the frame holding the last committed position.
	last lastFrame

	// checkpointed is the last position the latest index checkpoint holds.
	checkpointed atomic.Uint64
	// checkpointDue asks the checkpointer for a checkpoint.
	checkpointDue chan struct{}
	// checkpointerDone is closed when the checkpointer has stopped.
	checkpointerDone chan struct{}
	// fromCheckpoint is the number of segments whose index Open took from
	// the checkpoint (0: it scanned the whole log).
	fromCheckpoint int

	// failed, once set (by the writer, after a failed fdatasync), fails
	// every later append.
	failed atomic.Pointer[error]

	// reqs carries appends to the writer; Close closes it (under mu).
	reqs chan *appendReq
	// writerDone is closed when the writer has answered every queued append.
	writerDone chan struct{}
	// feed holds the last position of the last committed frame and
	// wakes the subscriptions (the writer publishes to it); Close closes
	// it.
	feed *storekit.Feed

	// Counters for Stats, updated by the writer.
	commits, appends, events atomic.Uint64
}

// Stats are counters of a Store since Open (see storekit.Stats).
type Stats = storekit.Stats

// Stats returns the store's counters. Appends/Commits is the mean group
// commit size.
func (s *Store) Stats() Stats {
	return Stats{
		Commits:            s.commits.Load(),
		Appends:            s.appends.Load(),
		Events:             s.events.Load(),
		WaitingSubscribers: s.feed.Waiting(),
	}
}

var _ eventstore.Store = (*Store)(nil)

// Open opens the log store in directory dir, creating it (mode 0700) on
// first use, and rebuilds the index by scanning the log (see the package
// comment for what a damaged log does). Only one process can have the store
// open; another Open fails with ErrLocked after Options.LockTimeout.
func Open(dir string, opts Options) (*Store, error) {
	opts = opts.withDefaults()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("logstore: create directory: %w", err)
	}
	// The directory's own entry must be durable before anything in it is
	// acknowledged.
	if err := syncDir(filepath.Dir(dir)); err != nil {
		return nil, err
	}
	lock, err := lockDir(dir, opts.LockTimeout)
	if err != nil {
		return nil, err
	}
	s := &Store{
		dir:        dir,
		opts:       opts,
		lock:       lock,
		streams:    map[string]*streamIndex{},
		reqs:       make(chan *appendReq, opts.MaxBatch),
		writerDone: make(chan struct{}),

		checkpointDue:    make(chan struct{}, 1),
		checkpointerDone: make(chan struct{}),
	}
	if err := s.load(); err != nil {
		s.closeFiles()
		return nil, fmt.Errorf("logstore: open %s: %w", dir, err)
	}
	s.feed = storekit.NewFeed(s.offs.len())
	go s.writer()
	go s.checkpointer()
	return s, nil
}

// lockDir takes an exclusive flock on dir/LOCK, waiting up to timeout.
func lockDir(dir string, timeout time.Duration) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, "LOCK"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("logstore: lock: %w", err)
	}
	deadline := time.Now().Add(timeout)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			_ = f.Close()
			return nil, fmt.Errorf("logstore: lock: %w", err)
		}
		if time.Now().After(deadline) {
			_ = f.Close()
			return nil, fmt.Errorf("%w: %s", ErrLocked, dir)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("logstore: sync directory: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("logstore: sync directory: %w", err)
	}
	return nil
}

// LastPosition returns the position of the last committed event (0 when
// the log is empty); positions have no gaps, so it is the event count.
func (s *Store) LastPosition() uint64 { return s.feed.Committed() }

// Dir returns the directory the store was opened on.
func (s *Store) Dir() string { return s.dir }

// Ping reports whether the store is open and able to take appends.
func (s *Store) Ping(ctx context.Context) error {
	return s.gate.Do(ctx, s.failure)
}

// failure returns the error every append gets after a failed fdatasync.
func (s *Store) failure() error {
	if p := s.failed.Load(); p != nil {
		return fmt.Errorf("logstore: %w: the store stopped after a failed fdatasync (%w); restart to re-read the log", eventstore.ErrUnavailable, *p)
	}
	return nil
}

// Close waits for appends already queued to be committed and answered,
// ends every subscription (Recv returns ErrClosed) and closes the files.
// Later calls, including Close, return ErrClosed.
func (s *Store) Close() error {
	var err error
	if cerr := s.gate.Close(func() {
		close(s.reqs)
		s.feed.Close()
		<-s.writerDone
		<-s.checkpointerDone
		if s.failure() == nil && s.feed.Committed() > s.checkpointed.Load() {
			// The next Open reads this instead of scanning the log.
			if err := s.writeCheckpoint(); err != nil {
				s.opts.Logger.Warn("logstore: index checkpoint at close failed (the next open scans more of the log)", "err", err)
			}
		}
		err = s.closeFiles()
	}); cerr != nil {
		return cerr
	}
	if err != nil {
		return fmt.Errorf("logstore: close %s: %w", s.dir, err)
	}
	return nil
}

func (s *Store) closeFiles() error {
	var errs []error
	for _, seg := range s.segs {
		errs = append(errs, seg.f.Close())
	}
	errs = append(errs, s.lock.Close())
	return errors.Join(errs...)
}
