package boltstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	bolt "go.etcd.io/bbolt"

	"turnstile/adapters/internal/storekit"
	"turnstile/domain/eventstore"
)

// appendReq is one Append waiting for the writer.
type appendReq struct {
	ctx      context.Context
	stream   string
	expected eventstore.ExpectedVersion
	ids      []uuid.UUID
	// records are the encoded events; the writer patches and stores them.
	records [][]byte
	// done receives exactly one response; it is buffered so the writer
	// never blocks on a caller that has gone.
	done chan appendResp
}

type appendResp struct {
	res eventstore.AppendResult
	err error
}

// Append writes events to stream atomically if expected holds, and returns
// once they are committed to disk. An append whose ids equal those stored
// right after the expected version (or, with Any, equal events among the
// stream's latest 256) is a retry: it returns the original result and writes
// nothing.
//
// When ctx ends before the writer answers, Append returns an error wrapping
// ctx.Err(); the append may still be committed, and a retry with the same
// ids and expected version is recognised.
func (s *Store) Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events []eventstore.EventData) (eventstore.AppendResult, error) {
	req, err := newAppendReq(ctx, stream, expected, events)
	if err != nil {
		return eventstore.AppendResult{}, err
	}
	if err := s.gate.Do(ctx, func() error { return storekit.Send(ctx, s.reqs, req) }); err != nil {
		return eventstore.AppendResult{}, err
	}
	select {
	case r := <-req.done:
		return r.res, r.err
	case <-ctx.Done():
		return eventstore.AppendResult{}, fmt.Errorf("boltstore: append to %s: outcome unknown: %w", stream, ctx.Err())
	}
}

func newAppendReq(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events []eventstore.EventData) (*appendReq, error) {
	if err := storekit.CheckAppend(ErrInvalid, stream, expected, len(events)); err != nil {
		return nil, err
	}
	req := &appendReq{
		ctx:      ctx,
		stream:   stream,
		expected: expected,
		ids:      make([]uuid.UUID, len(events)),
		records:  make([][]byte, len(events)),
		done:     make(chan appendResp, 1),
	}
	for i, ev := range events {
		if err := storekit.CheckEvent(ErrInvalid, stream, i, ev); err != nil {
			return nil, err
		}
		req.ids[i] = ev.ID
		req.records[i] = encodeRecord(stream, ev)
	}
	return req, nil
}

// writer is the only goroutine that writes to the file. It runs until Close
// closes reqs and every queued request has been answered.
func (s *Store) writer() {
	defer close(s.writerDone)
	storekit.Fold(s.reqs, s.maxBatch, nil, 0, s.commitBatch)
}

// commitBatch applies batch in one transaction and answers every request.
// A request that fails with a storage error (not a version conflict) is
// answered with it and the rest of the batch is retried without it.
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

// tryCommit applies reqs in one transaction. It answers every request and
// returns -1, or answers none and returns the index of a request that hit a
// storage error and that error.
func (s *Store) tryCommit(reqs []*appendReq) (int, error) {
	tx, err := s.db.Begin(true)
	if err != nil {
		err = fmt.Errorf("boltstore: begin: %w: %w", eventstore.ErrUnavailable, err)
		for _, r := range reqs {
			r.done <- appendResp{err: err}
		}
		return -1, nil
	}
	w := newTxWriter(tx, time.Now().UnixNano())
	resps := make([]appendResp, len(reqs))
	for i, r := range reqs {
		res, err := w.apply(r)
		var wev *eventstore.WrongExpectedVersionError
		if err != nil && !errors.As(err, &wev) {
			_ = tx.Rollback()
			return i, fmt.Errorf("boltstore: append to %s: %w", r.stream, err)
		}
		resps[i] = appendResp{res: res, err: err}
	}
	if !w.wrote {
		// Only conflicts and retries of committed appends: nothing to sync.
		_ = tx.Rollback()
	} else if err := tx.Commit(); err != nil {
		// Every answer of the batch, conflicts included, may depend on
		// writes that are now lost: all get the commit error.
		err = fmt.Errorf("boltstore: commit: %w: %w", eventstore.ErrUnavailable, err)
		for i := range resps {
			resps[i] = appendResp{err: err}
		}
	} else {
		s.commits.Add(1)
		s.appends.Add(w.appends)
		s.events.Add(w.events)
		s.feed.Publish(w.last)
	}
	for i, r := range reqs {
		r.done <- resps[i]
	}
	return -1, nil
}

// txWriter applies appends inside one read-write transaction.
type txWriter struct {
	log, streams, index *bolt.Bucket
	created             int64
	// wrote reports whether any event was put; last is the last position.
	wrote bool
	last  uint64
	// appends and events count what this transaction wrote.
	appends, events uint64
}

func newTxWriter(tx *bolt.Tx, created int64) *txWriter {
	w := &txWriter{
		log:     tx.Bucket(bucketLog),
		streams: tx.Bucket(bucketStreams),
		index:   tx.Bucket(bucketIndex),
		created: created,
	}
	// Positions only grow: pack the log's pages full.
	w.log.FillPercent = 1.0
	return w
}

// apply checks r's expected version and either writes r's events, or
// recognises a retry, or returns a *WrongExpectedVersionError having
// written nothing. Any other error may leave partial writes: the caller
// rolls the transaction back.
func (w *txWriter) apply(r *appendReq) (eventstore.AppendResult, error) {
	sid, last, exists, err := lookupStream(w.streams, w.index, r.stream)
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
	// Any.
	if !exists {
		return w.write(r, 0, 0, false)
	}
	if first, ok, err := w.recentRevision(sid, last, r.ids[0]); err != nil {
		return eventstore.AppendResult{}, err
	} else if ok {
		// The first id is among the stream's recent events: the append is a
		// retry if the rest follow it; otherwise it conflicts with them.
		return w.retry(r, sid, last, first, wrong)
	}
	return w.write(r, sid, last+1, true)
}

// anyRetryWindow is how many of a stream's latest events an append with Any
// is compared with to recognise a retry (EventStoreDB consults a bounded
// cache of recent ids the same way).
const anyRetryWindow = 256

// recentRevision finds id among the last anyRetryWindow events of stream sid.
func (w *txWriter) recentRevision(sid, last uint64, id uuid.UUID) (uint64, bool, error) {
	c := w.index.Cursor()
	k, v := c.Seek(revKey(sid, last))
	prefix := revPrefix(sid)
	for n := 0; k != nil && n < anyRetryWindow && bytes.HasPrefix(k, prefix) && len(k) == 17; n++ {
		_, stored, err := decodeRevValue(v)
		if err != nil {
			return 0, false, err
		}
		if stored == id {
			return binary.BigEndian.Uint64(k[9:]), true, nil
		}
		k, v = c.Prev()
	}
	return 0, false, nil
}

// retry returns the result of the stored events from revision first on when
// their ids equal r's, and wrong() otherwise.
func (w *txWriter) retry(r *appendReq, sid, last, first uint64, wrong func() error) (eventstore.AppendResult, error) {
	var pos uint64
	for i, id := range r.ids {
		rev := first + uint64(i)
		if rev > last {
			return eventstore.AppendResult{}, wrong()
		}
		v := w.index.Get(revKey(sid, rev))
		if v == nil {
			return eventstore.AppendResult{}, fmt.Errorf("%w: %s revision %d missing from the index", ErrCorrupt, r.stream, rev)
		}
		p, stored, err := decodeRevValue(v)
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

// write stores r's events at revisions first, first+1, …; exists says
// whether the stream (with id sid) already exists.
func (w *txWriter) write(r *appendReq, sid, first uint64, exists bool) (eventstore.AppendResult, error) {
	if !exists {
		var err error
		if sid, err = w.streams.NextSequence(); err != nil {
			return eventstore.AppendResult{}, err
		}
		if err := w.streams.Put([]byte(r.stream), u64(sid)); err != nil {
			return eventstore.AppendResult{}, err
		}
	}
	var pos uint64
	for i, rec := range r.records {
		rev := first + uint64(i)
		var err error
		if pos, err = w.log.NextSequence(); err != nil {
			return eventstore.AppendResult{}, err
		}
		storekit.PatchRecord(rec, rev, w.created)
		if err := w.log.Put(u64(pos), rec); err != nil {
			return eventstore.AppendResult{}, err
		}
		if err := w.index.Put(revKey(sid, rev), revValue(pos, r.ids[i])); err != nil {
			return eventstore.AppendResult{}, err
		}
	}
	last := first + uint64(len(r.records)) - 1
	w.wrote, w.last = true, pos
	w.appends++
	w.events += uint64(len(r.records))
	return eventstore.AppendResult{
		NextExpectedRevision: last,
		Position:             eventstore.Position{Commit: pos, Prepare: pos},
	}, nil
}
