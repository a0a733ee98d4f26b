package boltstore

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/google/uuid"
	bolt "go.etcd.io/bbolt"
)

// Keys of the index bucket. They start with the stream id, so all of a
// stream's entries share one key range and an append writes them in key
// order (usually on one page):
//
//	sid (8) | tagRev | revision (8)  → position (8) | event id (16)
//
// A stream's last revision is the greatest tagRev key of its range; the
// streams bucket (name → sid) is written only when a stream is created.
//
// Files written before may also hold "sid | tagID | event id → revision"
// entries; they are no longer written or needed: inserting random event ids
// dirtied pages all over the index and cost a third of every commit, and a
// retry with Any is recognised from the stream's recent revisions instead.
const (
	tagRev byte = 0
	tagID  byte = 1
)

// bbolt keeps the slices passed to Put until the transaction ends, so every
// key and value below is a fresh allocation.

func u64(v uint64) []byte { return binary.BigEndian.AppendUint64(make([]byte, 0, 8), v) }

func decodeU64(v []byte) (uint64, error) {
	if len(v) != 8 {
		return 0, fmt.Errorf("%w: bad 8-byte value", ErrCorrupt)
	}
	return binary.BigEndian.Uint64(v), nil
}

// revPrefix is the key prefix of sid's revision entries.
func revPrefix(sid uint64) []byte {
	b := make([]byte, 9, 17)
	binary.BigEndian.PutUint64(b, sid)
	b[8] = tagRev
	return b
}

func revKey(sid, rev uint64) []byte { return binary.BigEndian.AppendUint64(revPrefix(sid), rev) }

func revValue(pos uint64, id uuid.UUID) []byte {
	b := make([]byte, 24)
	binary.BigEndian.PutUint64(b, pos)
	copy(b[8:], id[:])
	return b
}

func decodeRevValue(v []byte) (pos uint64, id uuid.UUID, err error) {
	if len(v) != 24 {
		return 0, uuid.Nil, fmt.Errorf("%w: bad revision index entry", ErrCorrupt)
	}
	return binary.BigEndian.Uint64(v), uuid.UUID(v[8:24]), nil
}

// idKey is the first key after sid's revision entries (an id entry of the
// older layout would sort there).
func idKey(sid uint64, id uuid.UUID) []byte {
	b := make([]byte, 25)
	binary.BigEndian.PutUint64(b, sid)
	b[8] = tagID
	copy(b[9:], id[:])
	return b
}

// lookupStream returns the id and last revision of stream; ok is false when
// the stream does not exist.
func lookupStream(streams, index *bolt.Bucket, stream string) (sid, last uint64, ok bool, err error) {
	v := streams.Get([]byte(stream))
	if v == nil {
		return 0, 0, false, nil
	}
	if sid, err = decodeU64(v); err != nil {
		return 0, 0, false, err
	}
	// The last revision entry is just before the stream's first id entry.
	c := index.Cursor()
	k, _ := c.Seek(idKey(sid, uuid.Nil))
	if k == nil {
		k, _ = c.Last()
	} else {
		k, _ = c.Prev()
	}
	if k == nil || len(k) != 17 || !bytes.HasPrefix(k, revPrefix(sid)) {
		return 0, 0, false, fmt.Errorf("%w: stream %s has no revisions", ErrCorrupt, stream)
	}
	return sid, binary.BigEndian.Uint64(k[9:]), true, nil
}
