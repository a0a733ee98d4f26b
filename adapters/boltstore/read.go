package boltstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"

	bolt "go.etcd.io/bbolt"

	"turnstile/domain/eventstore"
)

// ctxCheckEvery is how many records a read examines between checks of its
// context.
const ctxCheckEvery = 1024

// view runs fn in a read transaction unless the store is closed. The read
// lock keeps Close from closing the file under fn.
func (s *Store) view(ctx context.Context, fn func(tx *bolt.Tx) error) error {
	return s.gate.Do(ctx, func() error { return s.db.View(fn) })
}

// ReadStream returns up to max events of stream with revision >= from, in
// order. A missing stream yields no events and no error. max <= 0 means no
// limit.
func (s *Store) ReadStream(ctx context.Context, stream string, from uint64, max int) ([]eventstore.RecordedEvent, error) {
	var out []eventstore.RecordedEvent
	err := s.view(ctx, func(tx *bolt.Tx) error {
		index := tx.Bucket(bucketIndex)
		sid, last, ok, err := lookupStream(tx.Bucket(bucketStreams), index, stream)
		if err != nil || !ok {
			return err
		}
		if from > last {
			return nil
		}
		n := last - from + 1
		if max > 0 && uint64(max) < n {
			n = uint64(max)
		}
		out = make([]eventstore.RecordedEvent, 0, n)
		log := tx.Bucket(bucketLog)
		c := index.Cursor()
		prefix := revPrefix(sid)
		for k, v := c.Seek(revKey(sid, from)); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			if len(out)%ctxCheckEvery == ctxCheckEvery-1 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			pos, _, err := decodeRevValue(v)
			if err != nil {
				return err
			}
			rec := log.Get(u64(pos))
			if rec == nil {
				return fmt.Errorf("%w: %s revision %d: position %d missing", ErrCorrupt, stream, binary.BigEndian.Uint64(k[9:]), pos)
			}
			ev, err := records.Decode(pos, rec)
			if err != nil {
				return err
			}
			out = append(out, ev)
			if uint64(len(out)) == n {
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("boltstore: read stream %s: %w", stream, err)
	}
	return out, nil
}

// ReadAll returns up to max events of the log strictly after from, in
// order. max <= 0 means no limit. Only Commit of from is used (the store's
// positions have Commit == Prepare).
func (s *Store) ReadAll(ctx context.Context, from eventstore.Position, max int) ([]eventstore.RecordedEvent, error) {
	out, _, err := s.scan(ctx, from.Commit, "", max, 0)
	if err != nil {
		return nil, fmt.Errorf("boltstore: read all from %s: %w", from, err)
	}
	return out, nil
}

// scan returns up to max events (max <= 0: no limit) after position after
// whose stream starts with prefix, examining at most limit records (limit
// <= 0: no limit). scanned is the position of the last record examined (or
// after when none was).
func (s *Store) scan(ctx context.Context, after uint64, prefix string, max, limit int) (out []eventstore.RecordedEvent, scanned uint64, err error) {
	scanned = after
	err = s.view(ctx, func(tx *bolt.Tx) error {
		if after == math.MaxUint64 {
			return nil
		}
		if max > 0 {
			out = make([]eventstore.RecordedEvent, 0, min(max, 1024))
		}
		pre := []byte(prefix)
		c := tx.Bucket(bucketLog).Cursor()
		examined := 0
		for k, v := c.Seek(u64(after + 1)); k != nil; k, v = c.Next() {
			if examined%ctxCheckEvery == ctxCheckEvery-1 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			examined++
			pos := binary.BigEndian.Uint64(k)
			if len(pre) > 0 {
				stream, err := records.Stream(v)
				if err != nil {
					return fmt.Errorf("position %d: %w", pos, err)
				}
				if !bytes.HasPrefix(stream, pre) {
					scanned = pos
					if limit > 0 && examined >= limit {
						break
					}
					continue
				}
			}
			ev, err := records.Decode(pos, v)
			if err != nil {
				return err
			}
			out = append(out, ev)
			scanned = pos
			if (max > 0 && len(out) >= max) || (limit > 0 && examined >= limit) {
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, after, err
	}
	return out, scanned, nil
}
