package logstore

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"turnstile/adapters/internal/storekit"
	"turnstile/domain/eventstore"
)

// Limits on input beyond storekit's (MaxStreamName, MaxEventType), refused
// with ErrInvalid.
const (
	// maxAppendBytes bounds one append's encoded records (a frame's body
	// length is 32 bits).
	maxAppendBytes = 256 << 20
	// maxFrameBytes stops the writer folding more appends into a frame.
	maxFrameBytes = 16 << 20
)

// appendReq is one Append waiting for the writer.
type appendReq struct {
	ctx      context.Context
	stream   string
	expected eventstore.ExpectedVersion
	ids      []uuid.UUID
	// records are the encoded events with their length prefixes; the writer
	// patches in revision and time.
	records [][]byte
	size    int
	// buf holds records, from recordBufs; the writer returns it there once
	// it has copied them into its frame (release).
	buf *[]byte
	// created, when set (by Import), are the events' creation times;
	// otherwise the writer stamps them.
	created []int64
	// wantPos, when not zero (Import), is the position the first event
	// must get.
	wantPos uint64
	// done receives exactly one response; it is buffered so the writer
	// never blocks on a caller that has gone.
	done chan appendResp
}

type appendResp struct {
	res eventstore.AppendResult
	err error
}

// Append writes events to stream atomically if expected holds, and returns
// once they are on disk (written and fdatasynced). An append whose ids equal
// those stored right after the expected version (or, with Any, equal events
// among the stream's latest 256) is a retry: it returns the original result
// and writes nothing.
//
// When ctx ends before the writer answers, Append returns an error wrapping
// ctx.Err(); the append may still be committed, and a retry with the same
// ids and expected version is recognised.
func (s *Store) Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events []eventstore.EventData) (eventstore.AppendResult, error) {
	req, err := newAppendReq(ctx, stream, expected, events)
	if err != nil {
		return eventstore.AppendResult{}, err
	}
	if err := s.enqueue(ctx, req); err != nil {
		return eventstore.AppendResult{}, err
	}
	select {
	case r := <-req.done:
		return r.res, r.err
	case <-ctx.Done():
		return eventstore.AppendResult{}, fmt.Errorf("logstore: append to %s: outcome unknown: %w", stream, ctx.Err())
	}
}

// enqueue hands req to the writer.
func (s *Store) enqueue(ctx context.Context, req *appendReq) error {
	return s.gate.Do(ctx, func() error {
		if err := s.failure(); err != nil {
			return err
		}
		return storekit.Send(ctx, s.reqs, req)
	})
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
		if len(ev.Data)+len(ev.Metadata) > maxAppendBytes {
			return nil, fmt.Errorf("%w: event %d for %s is larger than %d bytes", ErrInvalid, i, stream, maxAppendBytes)
		}
		req.ids[i] = ev.ID
		req.size += recordPrefixSize + storekit.RecordLen(stream, ev)
		if req.size > maxAppendBytes {
			return nil, fmt.Errorf("%w: append to %s is larger than %d bytes", ErrInvalid, stream, maxAppendBytes)
		}
	}
	req.buf = getRecordBuf(req.size)
	b := (*req.buf)[:0]
	for i, ev := range events {
		start := len(b)
		b = appendRecord(b, stream, ev)
		req.records[i] = b[start:len(b):len(b)]
	}
	*req.buf = b
	return req, nil
}

// recordBufs holds the buffers appends encode their records into (as
// *[]byte): a request's buffer is garbage once the writer has copied its
// records into a frame, so it serves the next append instead of the
// collector. Buffers above maxPooledRecordBuf are left to the collector.
var recordBufs sync.Pool

const (
	minRecordBuf       = 2 << 10
	maxPooledRecordBuf = 64 << 10
)

// getRecordBuf returns an empty buffer with room for size bytes.
func getRecordBuf(size int) *[]byte {
	if p, _ := recordBufs.Get().(*[]byte); p != nil {
		if cap(*p) >= size {
			return p
		}
	}
	b := make([]byte, 0, max(size, minRecordBuf))
	return &b
}

// release returns r's record buffer to recordBufs. Only the writer calls
// it, after it has copied r's records into a frame or given up on r; the
// caller of Append never reads them.
func (r *appendReq) release() {
	if r.buf == nil {
		return
	}
	if cap(*r.buf) <= maxPooledRecordBuf {
		recordBufs.Put(r.buf)
	}
	r.buf, r.records = nil, nil
}

// writer is the only goroutine that writes to the log. It runs until Close
// closes reqs and every queued request has been answered.
func (s *Store) writer() {
	defer close(s.writerDone)
	var f frame
	storekit.Fold(s.reqs, s.opts.MaxBatch, func(r *appendReq) int { return r.size }, maxFrameBytes,
		func(batch []*appendReq) { s.commitBatch(batch, &f) })
}

// commitBatch applies batch as one frame and answers every request.
func (s *Store) commitBatch(batch []*appendReq, f *frame) {
	defer func() {
		for _, r := range batch {
			r.release()
		}
	}()
	if err := s.failure(); err != nil {
		for _, r := range batch {
			r.done <- appendResp{err: err}
		}
		return
	}
	f.reset(s.offs.len()+1, time.Now().UnixNano())
	resps := make([]appendResp, len(batch))
	for i, r := range batch {
		if err := r.ctx.Err(); err != nil {
			resps[i] = appendResp{err: err}
			continue
		}
		resps[i].res, resps[i].err = s.apply(f, r)
	}
	if f.count > 0 {
		if err := s.commitFrame(f); err != nil {
			// Every answer of the frame, conflicts included, may depend on
			// writes that are now lost: all get the error.
			for i := range resps {
				resps[i] = appendResp{err: err}
			}
		}
	}
	for i, r := range batch {
		r.done <- resps[i]
	}
}

// apply checks r's expected version against the index and the frame being
// built, and either adds r's events to the frame, or recognises a retry, or
// returns a *WrongExpectedVersionError having added nothing.
func (s *Store) apply(f *frame, r *appendReq) (eventstore.AppendResult, error) {
	if next := f.first + uint64(f.count); r.wantPos != 0 && r.wantPos != next {
		return eventstore.AppendResult{}, fmt.Errorf("%w: import of %s at position %d, but the log's next position is %d", ErrInvalid, r.stream, r.wantPos, next)
	}
	si := s.streams[r.stream]
	ps := f.streams[r.stream]
	n := 0
	if si != nil {
		n = int(si.len())
	}
	if ps != nil {
		n += len(ps.pos)
	}
	exists, last := n > 0, uint64(n)-1
	wrong := func() error {
		actual := int64(-1)
		if exists {
			actual = int64(last)
		}
		return &eventstore.WrongExpectedVersionError{Stream: r.stream, Expected: r.expected, Actual: actual}
	}
	v := streamView{s: s, f: f, si: si, ps: ps}
	if rev, ok := r.expected.Revision(); ok {
		switch {
		case !exists || rev > last:
			return eventstore.AppendResult{}, wrong()
		case rev < last:
			return v.retry(r, last, rev+1, wrong)
		}
		return f.add(r, last+1), nil
	}
	if r.expected.IsNoStream() {
		if exists {
			return v.retry(r, last, 0, wrong)
		}
		return f.add(r, 0), nil
	}
	// Any.
	if !exists {
		return f.add(r, 0), nil
	}
	for n, rev := 0, last; n < anyRetryWindow; n, rev = n+1, rev-1 {
		_, id, err := v.at(rev)
		if err != nil {
			return eventstore.AppendResult{}, err
		}
		if id == r.ids[0] {
			// The first id is among the stream's recent events: the append
			// is a retry if the rest follow it; otherwise it conflicts.
			return v.retry(r, last, rev, wrong)
		}
		if rev == 0 {
			break
		}
	}
	return f.add(r, last+1), nil
}

// anyRetryWindow is how many of a stream's latest events an append with Any
// is compared with to recognise a retry (EventStoreDB consults a bounded
// cache of recent ids the same way).
const anyRetryWindow = 256

// streamView is one stream as the writer sees it: committed revisions in
// the index, then those of the frame being built.
type streamView struct {
	s  *Store
	f  *frame
	si *streamIndex
	ps *pendingStream
}

// at returns the position and event id of revision rev.
func (v streamView) at(rev uint64) (uint64, uuid.UUID, error) {
	committed := uint64(0)
	if v.si != nil {
		committed = v.si.len()
	}
	if rev >= committed {
		i := rev - committed
		return v.ps.pos[i], v.ps.ids[i], nil
	}
	pos := v.si.at(rev)
	id, err := v.s.readID(pos)
	return pos, id, err
}

// retry returns the result of the stored events from revision first on when
// their ids equal r's, and wrong() otherwise.
func (v streamView) retry(r *appendReq, last, first uint64, wrong func() error) (eventstore.AppendResult, error) {
	var pos uint64
	for i, id := range r.ids {
		rev := first + uint64(i)
		if rev > last {
			return eventstore.AppendResult{}, wrong()
		}
		p, stored, err := v.at(rev)
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
