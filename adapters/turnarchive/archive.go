// Package turnarchive keeps the read models' summaries of old turns in a
// bbolt file beside the checkpoint (projections.Archive), so that what
// serve holds in memory follows what is live, not every turn ever run.
//
// # File layout
//
//	meta      "format" → formatVersion; "epoch" → the epoch (a UUID);
//	          "turns" → how many turns it holds (uvarint), written with them
//	turns     turn id → len(workspace) (uvarint), workspace, record
//	ws        len(workspace) (uvarint), workspace, turn id → nothing (a
//	          workspace's turns in id order; the length keeps a workspace
//	          that extends another's name, even by a NUL, out of its listing)
//	profiles  digest → the profile's encoding
//
// Puts are gathered in memory and written in one transaction (bbolt's
// commit, synced: never without, which a power loss could leave torn)
// every flushEvery of them, on Scan and on Sync: a record may be lost to a
// crash until the next write, and the projector calls Sync before each
// checkpoint, so a checkpoint never names a summary the archive lost. Between the checkpoint and a crash the archive may hold
// more than the checkpoint names; the projector allows for it.
package turnarchive

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

const formatVersion = "turnstile-turn-archive/1"

// flushEvery bounds the records gathered in memory before they are written.
const flushEvery = 4096

var (
	bucketMeta     = []byte("meta")
	bucketTurns    = []byte("turns")
	bucketWS       = []byte("ws")
	bucketProfiles = []byte("profiles")
	keyFormat      = []byte("format")
	keyEpoch       = []byte("epoch")
	keyTurns       = []byte("turns")
)

// ErrLocked: another process has the archive open.
var ErrLocked = errors.New("turnarchive: the archive is open in another process")

// Archive is a projections.Archive in a bbolt file.
type Archive struct {
	mu       sync.Mutex // guards the fields below and every write
	db       *bolt.DB
	epoch    string
	n        int // turns held, written or not
	dirty    map[string]entry
	profiles map[string][]byte // not yet written
}

type entry struct {
	ws  string
	rec []byte
}

// Open opens (or creates) the archive at path.
func Open(path string) (*Archive, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 2 * time.Second})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("%w: %s", ErrLocked, path)
	}
	if err != nil {
		return nil, fmt.Errorf("turnarchive: %w", err)
	}
	a := &Archive{db: db, dirty: map[string]entry{}, profiles: map[string][]byte{}}
	err = db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucketIfNotExists(bucketMeta)
		if err != nil {
			return err
		}
		switch f := meta.Get(keyFormat); {
		case f == nil:
			if err := meta.Put(keyFormat, []byte(formatVersion)); err != nil {
				return err
			}
		case string(f) != formatVersion:
			return fmt.Errorf("turnarchive: %s is of format %q, this version reads %q", path, f, formatVersion)
		}
		if e := meta.Get(keyEpoch); e != nil {
			a.epoch = string(e)
		} else {
			a.epoch = uuid.NewString()
			if err := meta.Put(keyEpoch, []byte(a.epoch)); err != nil {
				return err
			}
		}
		for _, b := range [][]byte{bucketTurns, bucketWS, bucketProfiles} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		n, k := binary.Uvarint(meta.Get(keyTurns))
		if k <= 0 {
			// Not written yet: counted (reads every page once).
			n = uint64(tx.Bucket(bucketTurns).Stats().KeyN)
		}
		a.n = int(n)
		return nil
	})
	if err != nil {
		db.Close()
		return nil, err
	}
	return a, nil
}

// Close writes what is gathered, with a sync, and closes the file.
func (a *Archive) Close() error {
	err := a.Sync()
	return errors.Join(err, a.db.Close())
}

// Epoch names what the archive holds since it was created or last reset.
func (a *Archive) Epoch() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.epoch
}

// Get returns the record of a turn.
func (a *Archive) Get(id string) ([]byte, bool, error) {
	a.mu.Lock()
	if e, ok := a.dirty[id]; ok {
		a.mu.Unlock()
		return e.rec, true, nil
	}
	a.mu.Unlock()
	var rec []byte
	err := a.db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketTurns).Get([]byte(id)); v != nil {
			_, r, err := splitValue(v)
			rec = slices.Clone(r)
			return err
		}
		return nil
	})
	return rec, rec != nil, err
}

// Put stores the record of a turn of workspace ws.
func (a *Archive) Put(id, ws string, rec []byte) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.dirty[id]; !ok {
		var known bool
		if err := a.db.View(func(tx *bolt.Tx) error {
			known = tx.Bucket(bucketTurns).Get([]byte(id)) != nil
			return nil
		}); err != nil {
			return err
		}
		if !known {
			a.n++
		}
	}
	a.dirty[id] = entry{ws: ws, rec: slices.Clone(rec)}
	if len(a.dirty) >= flushEvery {
		return a.flush()
	}
	return nil
}

// PutProfile stores a profile's encoding under its digest.
func (a *Archive) PutProfile(digest string, enc []byte) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.profiles[digest] = slices.Clone(enc)
	return nil
}

// Profiles calls fn with every profile stored.
func (a *Archive) Profiles(fn func(digest string, enc []byte) error) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.flush(); err != nil {
		return err
	}
	return a.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketProfiles).ForEach(func(k, v []byte) error { return fn(string(k), v) })
	})
}

// Scan calls fn with the records of the turns whose id sorts after after,
// of workspace ws ("" for all), in id order, until fn returns false. What is
// gathered is written first. fn runs in a read transaction: it must not
// keep rec.
func (a *Archive) Scan(after, ws string, fn func(id string, rec []byte) bool) error {
	a.mu.Lock()
	err := a.flush()
	a.mu.Unlock()
	if err != nil {
		return err
	}
	return a.db.View(func(tx *bolt.Tx) error {
		turns := tx.Bucket(bucketTurns)
		if ws == "" {
			c := turns.Cursor()
			for k, v := c.Seek([]byte(after)); k != nil; k, v = c.Next() {
				if string(k) == after {
					continue
				}
				_, rec, err := splitValue(v)
				if err != nil {
					return err
				}
				if !fn(string(k), rec) {
					return nil
				}
			}
			return nil
		}
		prefix := wsKey(ws, "")
		c := tx.Bucket(bucketWS).Cursor()
		for k, _ := c.Seek(append(slices.Clone(prefix), after...)); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			id := k[len(prefix):]
			if string(id) == after {
				continue
			}
			v := turns.Get(id)
			if v == nil {
				return fmt.Errorf("turnarchive: workspace index names turn %s, which is missing", id)
			}
			_, rec, err := splitValue(v)
			if err != nil {
				return err
			}
			if !fn(string(id), rec) {
				return nil
			}
		}
		return nil
	})
}

// Len is how many turns the archive holds.
func (a *Archive) Len() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.n
}

// Sync writes what is gathered: every write is synced.
func (a *Archive) Sync() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.flush()
}

// Reset empties the archive under a new epoch, durably.
func (a *Archive) Reset() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	epoch := uuid.NewString()
	err := a.db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketTurns, bucketWS, bucketProfiles} {
			if err := tx.DeleteBucket(b); err != nil {
				return err
			}
			if _, err := tx.CreateBucket(b); err != nil {
				return err
			}
		}
		meta := tx.Bucket(bucketMeta)
		if err := meta.Put(keyTurns, binary.AppendUvarint(nil, 0)); err != nil {
			return err
		}
		return meta.Put(keyEpoch, []byte(epoch))
	})
	if err != nil {
		return fmt.Errorf("turnarchive: resetting: %w", err)
	}
	a.epoch, a.n, a.dirty, a.profiles = epoch, 0, map[string]entry{}, map[string][]byte{}
	return nil
}

// flush writes what is gathered in one synced transaction. Called with mu
// held.
func (a *Archive) flush() error {
	if len(a.dirty) == 0 && len(a.profiles) == 0 {
		return nil
	}
	err := a.db.Update(func(tx *bolt.Tx) error {
		profiles := tx.Bucket(bucketProfiles)
		for d, enc := range a.profiles {
			if err := profiles.Put([]byte(d), enc); err != nil {
				return err
			}
		}
		turns, wsIndex := tx.Bucket(bucketTurns), tx.Bucket(bucketWS)
		for id, e := range a.dirty {
			if v := turns.Get([]byte(id)); v != nil {
				old, _, err := splitValue(v)
				if err != nil {
					return err
				}
				if old != e.ws {
					if err := wsIndex.Delete(wsKey(old, id)); err != nil {
						return err
					}
				}
			}
			v := binary.AppendUvarint(make([]byte, 0, len(e.ws)+len(e.rec)+2), uint64(len(e.ws)))
			v = append(append(v, e.ws...), e.rec...)
			if err := turns.Put([]byte(id), v); err != nil {
				return err
			}
			if err := wsIndex.Put(wsKey(e.ws, id), nil); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketMeta).Put(keyTurns, binary.AppendUvarint(nil, uint64(a.n)))
	})
	if err != nil {
		return fmt.Errorf("turnarchive: writing: %w", err)
	}
	clear(a.dirty)
	clear(a.profiles)
	return nil
}

func wsKey(ws, id string) []byte {
	k := binary.AppendUvarint(make([]byte, 0, len(ws)+len(id)+2), uint64(len(ws)))
	return append(append(k, ws...), id...)
}

// splitValue splits a turns value into its workspace and record.
func splitValue(v []byte) (string, []byte, error) {
	n, k := binary.Uvarint(v)
	if k <= 0 || n > uint64(len(v)-k) {
		return "", nil, errors.New("turnarchive: a damaged record")
	}
	return string(v[k : k+int(n)]), v[k+int(n):], nil
}
