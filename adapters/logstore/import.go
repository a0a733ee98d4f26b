package logstore

import (
	"context"
	"fmt"

	"turnstile/domain/eventstore"
)

// Import appends events read from another store, keeping their streams,
// revisions, ids, creation times and global positions: evs must continue
// the log (the first at the next position, in order, without gaps) and
// each stream's revisions. It is what `turnstile migrate` copies with; no
// other append may run meanwhile (an interleaved one fails the import). The
// events are queued as one append per run of a stream, so the writer folds
// them into few group commits. Import returns once all are durable or the
// first fails; on error, a prefix of evs may be stored.
func (s *Store) Import(ctx context.Context, evs []eventstore.RecordedEvent) error {
	var reqs []*appendReq
	for i := 0; i < len(evs); {
		j := i + 1
		for j < len(evs) && evs[j].Stream == evs[i].Stream {
			j++
		}
		run := evs[i:j]
		data := make([]eventstore.EventData, len(run))
		created := make([]int64, len(run))
		for k, e := range run {
			if e.Position.Commit != run[0].Position.Commit+uint64(k) || e.Revision != run[0].Revision+uint64(k) {
				return fmt.Errorf("%w: import: %s@%d at position %s does not follow the event before it", ErrInvalid, e.Stream, e.Revision, e.Position)
			}
			data[k] = eventstore.EventData{ID: e.ID, Type: e.Type, Data: e.Data, Metadata: e.Metadata}
			created[k] = e.Created.UnixNano()
		}
		exp := eventstore.NoStream()
		if run[0].Revision > 0 {
			exp = eventstore.Exactly(run[0].Revision - 1)
		}
		req, err := newAppendReq(ctx, run[0].Stream, exp, data)
		if err != nil {
			return err
		}
		req.created, req.wantPos = created, run[0].Position.Commit
		reqs = append(reqs, req)
		i = j
	}
	for _, req := range reqs {
		if err := s.enqueue(ctx, req); err != nil {
			return err
		}
	}
	for _, req := range reqs {
		select {
		case r := <-req.done:
			if r.err != nil {
				return fmt.Errorf("logstore: import %s: %w", req.stream, r.err)
			}
			if r.res.Position.Commit != req.wantPos+uint64(len(req.ids))-1 {
				return fmt.Errorf("%w: import of %s stored at position %s, want %d", ErrCorrupt, req.stream, r.res.Position, req.wantPos+uint64(len(req.ids))-1)
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
