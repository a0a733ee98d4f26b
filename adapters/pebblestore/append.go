package pebblestore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/google/uuid"

	"turnstile/domain/eventstore"
)

// Limits on input, refused with ErrInvalid.
const (
	maxStreamName = 1024
	maxEventType  = 1024
)

type appendReq struct {
	ctx      context.Context
	stream   string
	expected eventstore.ExpectedVersion
	ids      []uuid.UUID
	records  [][]byte
	done     chan appendResp
}

type appendResp struct {
	res eventstore.AppendResult
	err error
}

// Append writes events to stream atomically if expected holds, and returns
// once they are synced to the WAL. Retries are recognised as in boltstore:
// ids equal to those stored right after the expected version (or, with Any,
// among the stream's latest 256 events) return the original result.
func (s *Store) Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events []eventstore.EventData) (eventstore.AppendResult, error) {
	req, err := newAppendReq(ctx, stream, expected, events)
	if err != nil {
		return eventstore.AppendResult{}, err
	}
	if err := ctx.Err(); err != nil {
		return eventstore.AppendResult{}, err
	}
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return eventstore.AppendResult{}, eventstore.ErrClosed
	}
	select {
	case s.reqs <- req:
		s.mu.RUnlock()
	case <-ctx.Done():
		s.mu.RUnlock()
		return eventstore.AppendResult{}, ctx.Err()
	}
	select {
	case r := <-req.done:
		return r.res, r.err
	case <-ctx.Done():
		return eventstore.AppendResult{}, fmt.Errorf("pebblestore: append to %s: outcome unknown: %w", stream, ctx.Err())
	}
}

func newAppendReq(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events []eventstore.EventData) (*appendReq, error) {
	if err := expected.Check(); err != nil {
		return nil, err
	}
	switch {
	case stream == "":
		return nil, fmt.Errorf("%w: empty stream name", ErrInvalid)
	case len(stream) > maxStreamName:
		return nil, fmt.Errorf("%w: stream name longer than %d bytes", ErrInvalid, maxStreamName)
	case len(events) == 0:
		return nil, fmt.Errorf("%w: no events for %s", ErrInvalid, stream)
	}
	req := &appendReq{
		ctx: ctx, stream: stream, expected: expected,
		ids:     make([]uuid.UUID, len(events)),
		records: make([][]byte, len(events)),
		done:    make(chan appendResp, 1),
	}
	for i, ev := range events {
		switch {
		case ev.ID == uuid.Nil:
			return nil, fmt.Errorf("%w: event %d for %s has no id", ErrInvalid, i, stream)
		case ev.Type == "":
			return nil, fmt.Errorf("%w: event %d for %s has no type", ErrInvalid, i, stream)
		case len(ev.Type) > maxEventType:
			return nil, fmt.Errorf("%w: event %d for %s has a type longer than %d bytes", ErrInvalid, i, stream, maxEventType)
		}
		req.ids[i] = ev.ID
		req.records[i] = encodeRecord(stream, ev)
	}
	return req, nil
}

// writer is the only goroutine that writes.
func (s *Store) writer() {
	defer close(s.writerDone)
	batch := make([]*appendReq, 0, s.maxBatch)
	for {
		req, ok := <-s.reqs
		if !ok {
			return
		}
		batch = append(batch[:0], req)
	fold:
		for len(batch) < s.maxBatch {
			select {
			case req, ok := <-s.reqs:
				if !ok {
					break fold
				}
				batch = append(batch, req)
			default:
				break fold
			}
		}
		s.commitBatch(batch)
		clear(batch)
	}
}

func (s *Store) commitBatch(batch []*appendReq) {
	live := make([]*appendReq, 0, len(batch))
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			r.done <- appendResp{err: err}
			continue
		}
		live = append(live, r)
	}
	for len(live) > 0 {
		bad, err := s.tryCommit(live)
		if bad < 0 {
			return
		}
		live[bad].done <- appendResp{err: err}
		live = append(live[:bad], live[bad+1:]...)
	}
}

// tryCommit applies reqs in one synced batch and answers every request
// (returning -1), or answers none and returns the index of a request that
// hit a storage error.
func (s *Store) tryCommit(reqs []*appendReq) (int, error) {
	b := s.db.NewIndexedBatch()
	defer b.Close()
	w := &batchWriter{b: b, created: time.Now().UnixNano(), next: s.committed.Load() + 1}
	resps := make([]appendResp, len(reqs))
	for i, r := range reqs {
		res, err := w.apply(r)
		var wev *eventstore.WrongExpectedVersionError
		if err != nil && !errors.As(err, &wev) {
			return i, fmt.Errorf("pebblestore: append to %s: %w", r.stream, err)
		}
		resps[i] = appendResp{res: res, err: err}
	}
	if w.wrote {
		if err := b.Commit(pebble.Sync); err != nil {
			err = fmt.Errorf("pebblestore: commit: %w: %w", eventstore.ErrUnavailable, err)
			for i := range resps {
				resps[i] = appendResp{err: err}
			}
		} else {
			s.commits.Add(1)
			s.appends.Add(w.appends)
			s.events.Add(w.events)
			s.published(w.next - 1)
		}
	}
	for i, r := range reqs {
		r.done <- resps[i]
	}
	return -1, nil
}

// batchWriter applies appends to one indexed batch, which reads its own
// writes.
type batchWriter struct {
	b       *pebble.Batch
	created int64
	// next is the next position to assign.
	next            uint64
	wrote           bool
	appends, events uint64
}

func logKey(pos uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{pfxLog}, pos)
}

func streamKey(stream string) []byte { return append([]byte{pfxStream}, stream...) }

func revKey(sid, rev uint64) []byte {
	k := binary.BigEndian.AppendUint64(append(make([]byte, 0, 17), pfxIndex), sid)
	return binary.BigEndian.AppendUint64(k, rev)
}

func revValue(pos uint64, id uuid.UUID) []byte {
	v := binary.BigEndian.AppendUint64(make([]byte, 0, 24), pos)
	return append(v, id[:]...)
}

func decodeRevValue(v []byte) (uint64, uuid.UUID, error) {
	if len(v) != 24 {
		return 0, uuid.Nil, fmt.Errorf("%w: bad revision index entry", ErrCorrupt)
	}
	return binary.BigEndian.Uint64(v), uuid.UUID(v[8:24]), nil
}

// indexBounds are the bounds of sid's index keys.
func indexBounds(sid uint64) (lo, hi []byte) {
	return revKey(sid, 0)[:9], revKey(sid+1, 0)[:9]
}

// lookupStream returns the id and last revision of stream.
func lookupStream(r interface {
	reader
	Get([]byte) ([]byte, io.Closer, error)
}, stream string) (sid, last uint64, ok bool, err error) {
	v, c, err := r.Get(streamKey(stream))
	if errors.Is(err, pebble.ErrNotFound) {
		return 0, 0, false, nil
	}
	if err != nil {
		return 0, 0, false, err
	}
	if len(v) != 8 {
		_ = c.Close()
		return 0, 0, false, fmt.Errorf("%w: bad stream id of %s", ErrCorrupt, stream)
	}
	sid = binary.BigEndian.Uint64(v)
	_ = c.Close()
	lo, hi := indexBounds(sid)
	it, err := r.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return 0, 0, false, err
	}
	defer it.Close()
	if !it.Last() {
		if err := it.Error(); err != nil {
			return 0, 0, false, err
		}
		return 0, 0, false, fmt.Errorf("%w: stream %s has no revisions", ErrCorrupt, stream)
	}
	return sid, binary.BigEndian.Uint64(it.Key()[9:]), true, nil
}

func (w *batchWriter) apply(r *appendReq) (eventstore.AppendResult, error) {
	sid, last, exists, err := lookupStream(w.b, r.stream)
	if err != nil {
		return eventstore.AppendResult{}, err
	}
	wrong := func() error {
		actual := int64(-1)
		if exists {
			actual = int64(last)
		}
		return &eventstore.WrongExpectedVersionError{Stream: r.stream, Expected: r.expected, Actual: actual}
	}
	if rev, ok := r.expected.Revision(); ok {
		switch {
		case !exists || rev > last:
			return eventstore.AppendResult{}, wrong()
		case rev < last:
			return w.retry(r, sid, last, rev+1, wrong)
		}
		return w.write(r, sid, last+1, true)
	}
	if r.expected.IsNoStream() {
		if exists {
			return w.retry(r, sid, last, 0, wrong)
		}
		return w.write(r, 0, 0, false)
	}
	if !exists {
		return w.write(r, 0, 0, false)
	}
	if first, ok, err := w.recentRevision(sid, r.ids[0]); err != nil {
		return eventstore.AppendResult{}, err
	} else if ok {
		return w.retry(r, sid, last, first, wrong)
	}
	return w.write(r, sid, last+1, true)
}

// anyRetryWindow is how many of a stream's latest events an append with Any
// is compared with to recognise a retry.
const anyRetryWindow = 256

func (w *batchWriter) recentRevision(sid uint64, id uuid.UUID) (uint64, bool, error) {
	lo, hi := indexBounds(sid)
	it, err := w.b.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return 0, false, err
	}
	defer it.Close()
	for ok, n := it.Last(), 0; ok && n < anyRetryWindow; ok, n = it.Prev(), n+1 {
		_, stored, err := decodeRevValue(it.Value())
		if err != nil {
			return 0, false, err
		}
		if stored == id {
			return binary.BigEndian.Uint64(it.Key()[9:]), true, nil
		}
	}
	return 0, false, it.Error()
}

func (w *batchWriter) retry(r *appendReq, sid, last, first uint64, wrong func() error) (eventstore.AppendResult, error) {
	var pos uint64
	for i, id := range r.ids {
		rev := first + uint64(i)
		if rev > last {
			return eventstore.AppendResult{}, wrong()
		}
		v, c, err := w.b.Get(revKey(sid, rev))
		if errors.Is(err, pebble.ErrNotFound) {
			return eventstore.AppendResult{}, fmt.Errorf("%w: %s revision %d missing from the index", ErrCorrupt, r.stream, rev)
		}
		if err != nil {
			return eventstore.AppendResult{}, err
		}
		p, stored, err := decodeRevValue(v)
		_ = c.Close()
		if err != nil {
			return eventstore.AppendResult{}, err
		}
		if stored != id {
			return eventstore.AppendResult{}, wrong()
		}
		pos = p
	}
	return eventstore.AppendResult{
		NextExpectedRevision: first + uint64(len(r.ids)) - 1,
		Position:             eventstore.Position{Commit: pos, Prepare: pos},
	}, nil
}

func (w *batchWriter) write(r *appendReq, sid, first uint64, exists bool) (eventstore.AppendResult, error) {
	if !exists {
		sid = w.next
		if err := w.b.Set(streamKey(r.stream), binary.BigEndian.AppendUint64(nil, sid), nil); err != nil {
			return eventstore.AppendResult{}, err
		}
	}
	var pos uint64
	for i, rec := range r.records {
		rev := first + uint64(i)
		pos = w.next
		w.next++
		patchRecord(rec, rev, w.created)
		if err := w.b.Set(logKey(pos), rec, nil); err != nil {
			return eventstore.AppendResult{}, err
		}
		if err := w.b.Set(revKey(sid, rev), revValue(pos, r.ids[i]), nil); err != nil {
			return eventstore.AppendResult{}, err
		}
	}
	w.wrote = true
	w.appends++
	w.events += uint64(len(r.records))
	return eventstore.AppendResult{
		NextExpectedRevision: first + uint64(len(r.records)) - 1,
		Position:             eventstore.Position{Commit: pos, Prepare: pos},
	}, nil
}
