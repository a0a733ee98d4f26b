package pebblestore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/cockroachdb/pebble/v2"

	"turnstile/domain/eventstore"
)

// ctxCheckEvery is how many records a read examines between checks of its
// context.
const ctxCheckEvery = 1024

// view runs fn unless the store is closed. fn reads the database itself,
// without a snapshot: a batch becomes visible atomically and the log only
// grows, so an index entry seen always points to a record that is visible.
func (s *Store) view(ctx context.Context, fn func(snap *pebble.DB) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return eventstore.ErrClosed
	}
	return fn(s.db)
}

// ReadStream returns up to max events of stream with revision >= from, in
// order. A missing stream yields no events and no error.
func (s *Store) ReadStream(ctx context.Context, stream string, from uint64, max int) ([]eventstore.RecordedEvent, error) {
	var out []eventstore.RecordedEvent
	err := s.view(ctx, func(snap *pebble.DB) error {
		sid, last, ok, err := lookupStream(snap, stream)
		if err != nil || !ok || from > last {
			return err
		}
		n := last - from + 1
		if max > 0 && uint64(max) < n {
			n = uint64(max)
		}
		out = make([]eventstore.RecordedEvent, 0, n)
		_, hi := indexBounds(sid)
		idx, err := snap.NewIter(&pebble.IterOptions{LowerBound: revKey(sid, from), UpperBound: hi})
		if err != nil {
			return err
		}
		defer idx.Close()
		for ok := idx.First(); ok && uint64(len(out)) < n; ok = idx.Next() {
			if len(out)%ctxCheckEvery == ctxCheckEvery-1 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			pos, _, err := decodeRevValue(idx.Value())
			if err != nil {
				return err
			}
			rec, c, err := snap.Get(logKey(pos))
			if errors.Is(err, pebble.ErrNotFound) {
				return fmt.Errorf("%w: %s revision %d: position %d missing", ErrCorrupt, stream, binary.BigEndian.Uint64(idx.Key()[9:]), pos)
			}
			if err != nil {
				return err
			}
			ev, err := decodeRecord(pos, rec)
			_ = c.Close()
			if err != nil {
				return err
			}
			out = append(out, ev)
		}
		return idx.Error()
	})
	if err != nil {
		return nil, fmt.Errorf("pebblestore: read stream %s: %w", stream, err)
	}
	return out, nil
}

// ReadAll returns up to max events of the log strictly after from, in
// order. max <= 0 means no limit.
func (s *Store) ReadAll(ctx context.Context, from eventstore.Position, max int) ([]eventstore.RecordedEvent, error) {
	out, _, err := s.scan(ctx, from.Commit, "", max, 0)
	if err != nil {
		return nil, fmt.Errorf("pebblestore: read all from %s: %w", from, err)
	}
	return out, nil
}

// scan returns up to max events after position after whose stream starts
// with prefix, examining at most limit records; scanned is the position of
// the last record examined (or after when none was).
func (s *Store) scan(ctx context.Context, after uint64, prefix string, max, limit int) (out []eventstore.RecordedEvent, scanned uint64, err error) {
	scanned = after
	if after == math.MaxUint64 {
		return nil, after, s.Ping(ctx)
	}
	err = s.view(ctx, func(snap *pebble.DB) error {
		if max > 0 {
			out = make([]eventstore.RecordedEvent, 0, min(max, 1024))
		}
		it, err := snap.NewIter(&pebble.IterOptions{LowerBound: logKey(after + 1), UpperBound: []byte{pfxLog + 1}})
		if err != nil {
			return err
		}
		defer it.Close()
		examined := 0
		for ok := it.First(); ok; ok = it.Next() {
			if examined%ctxCheckEvery == ctxCheckEvery-1 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			examined++
			k, v := it.Key(), it.Value()
			if len(k) != 9 {
				return fmt.Errorf("%w: bad log key", ErrCorrupt)
			}
			pos := binary.BigEndian.Uint64(k[1:])
			if prefix != "" {
				stream, err := recordStream(v)
				if err != nil {
					return fmt.Errorf("position %d: %w", pos, err)
				}
				if !strings.HasPrefix(string(stream), prefix) {
					scanned = pos
					if limit > 0 && examined >= limit {
						break
					}
					continue
				}
			}
			ev, err := decodeRecord(pos, v)
			if err != nil {
				return err
			}
			out = append(out, ev)
			scanned = pos
			if (max > 0 && len(out) >= max) || (limit > 0 && examined >= limit) {
				break
			}
		}
		return it.Error()
	})
	if err != nil {
		return nil, after, err
	}
	return out, scanned, nil
}
