// Package turnarchive keeps the read models' summaries of old turns in a
// bbolt file beside the checkpoint (projections.Archive), so that what
// serve holds in memory follows what is live, not every turn ever run.
//
// # File layout
//
//	meta      "format" → formatVersion; "epoch" → the epoch (a UUID);
//	          "turns" → how many turns it holds (uvarint), "gen" → how many
//	          writes since the epoch began (uvarint), "mark" → the mark the
//	          last write's records were given (the read models' last event
//	          then), all written with the records
//	turns     turn id → workspace, status (each its length as a uvarint,
//	          then it), record
//	ix        the turns in id order by workspace, by status and by both:
//	          'w' workspace, 's' status, 'b' workspace status (each
//	          length-prefixed, so that a name extending another's, even by
//	          a NUL, is not listed with it), then the turn id → nothing
//	profiles  digest → the profile's encoding
//
// Puts are gathered in memory and written in one transaction (bbolt's
// commit, synced: never without, which a power loss could leave torn)
// every flushEvery of them and on Sync: a record may be lost to a crash
// until the next write, and the projector calls Sync before each
// checkpoint, so a checkpoint never names a summary the archive lost.
// Reads merge what is gathered with the file, so a write that fails (a
// full disk) loses nothing from a listing: the records stay gathered and
// the write is tried again later; only Sync reports the failure. Between the checkpoint and a crash the archive may hold
// more than the checkpoint names; the projector allows for it.
package turnarchive

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

const formatVersion = "turnstile-turn-archive/2"

// flushEvery bounds the records gathered in memory before they are written.
const flushEvery = 4096

var (
	bucketMeta     = []byte("meta")
	bucketTurns    = []byte("turns")
	bucketIndex    = []byte("ix")
	bucketProfiles = []byte("profiles")
	keyFormat      = []byte("format")
	keyEpoch       = []byte("epoch")
	keyTurns       = []byte("turns")
	keyGen         = []byte("gen")
	keyMark        = []byte("mark")
)

// ErrLocked: another process has the archive open.
var ErrLocked = errors.New("turnarchive: the archive is open in another process")

// ErrDamaged: the file at the archive's path is not an archive this version
// can open (damaged, truncated, of another format, not a file). What it
// held can be rebuilt: the caller moves it aside and replays.
var ErrDamaged = errors.New("turnarchive: damaged")

// Archive is a projections.Archive in a bbolt file.
type Archive struct {
	mu       sync.Mutex // guards the fields below and every write
	db       *bolt.DB
	epoch    string
	n        int // turns held, written or not
	dirty    map[string]entry
	profiles map[string][]byte // not yet written
	gen      uint64            // writes since the epoch began
	mark     []byte            // the mark of the last write
	pending  []byte            // the mark of the last Put, written with it
	// retryAt is the number of records gathered at which a write that
	// failed is tried again (0: flushEvery).
	retryAt int
}

type entry struct {
	ws, status string
	rec        []byte
}

// Open opens (or creates) the archive at path. A file it cannot use is
// ErrDamaged.
func Open(path string) (a *Archive, err error) {
	if err := checkFile(path); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrDamaged, path, err)
	}
	// A page the checks above missed faults as a panic, not a crash.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			a, err = nil, fmt.Errorf("%w: %s: %v", ErrDamaged, path, r)
		}
	}()
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 2 * time.Second})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("%w: %s", ErrLocked, path)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrDamaged, path, err)
	}
	a = &Archive{db: db, dirty: map[string]entry{}, profiles: map[string][]byte{}}
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
			return fmt.Errorf("%w: %s is of format %q, this version reads %q", ErrDamaged, path, f, formatVersion)
		}
		if e := meta.Get(keyEpoch); e != nil {
			a.epoch = string(e)
		} else {
			a.epoch = uuid.NewString()
			if err := meta.Put(keyEpoch, []byte(a.epoch)); err != nil {
				return err
			}
		}
		for _, b := range [][]byte{bucketTurns, bucketIndex, bucketProfiles} {
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
		a.gen, _ = binary.Uvarint(meta.Get(keyGen))
		a.mark = slices.Clone(meta.Get(keyMark))
		return nil
	})
	if err != nil {
		db.Close()
		return nil, err
	}
	return a, nil
}

// checkFile refuses what bbolt would fault on rather than report: not a
// regular file, or a file shorter than a valid meta page says it is (a
// truncated one, whose mapping past its end is SIGBUS).
func checkFile(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	if fi.Size() == 0 {
		return nil // bbolt initialises an empty file
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	const magic = 0xED0CDAED
	head := make([]byte, 80)
	for i, off := 0, int64(0); i < 2; i++ {
		if _, err := f.ReadAt(head, off); err != nil {
			return fmt.Errorf("meta page %d: %w", i, err)
		}
		if binary.LittleEndian.Uint32(head[16:]) != magic {
			if i == 0 {
				return errors.New("no meta page")
			}
			break
		}
		pageSize := int64(binary.LittleEndian.Uint32(head[24:]))
		pages := int64(binary.LittleEndian.Uint64(head[56:]))
		if pageSize < 512 || pageSize > 1<<20 || pages < 0 || pages > fi.Size()/pageSize {
			return fmt.Errorf("meta page %d: %d pages of %d bytes in a file of %d", i, pages, pageSize, fi.Size())
		}
		off = pageSize
	}
	return nil
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
			_, _, r, err := splitValue(v)
			rec = slices.Clone(r)
			return err
		}
		return nil
	})
	return rec, rec != nil, err
}

// Put stores the record of a turn of workspace ws and status; mark names
// the last event it reflects (written with it, see Mark).
func (a *Archive) Put(id, ws, status string, rec, mark []byte) error {
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
	a.dirty[id] = entry{ws: ws, status: status, rec: slices.Clone(rec)}
	a.pending = slices.Clone(mark)
	if len(a.dirty) >= max(a.retryAt, flushEvery) {
		if err := a.flush(); err != nil {
			// Kept gathered (reads see it) and tried again after as
			// many more: a full disk must not stop the read models.
			a.retryAt = len(a.dirty) + flushEvery
		}
	}
	return nil
}

// Generation counts the archive's writes since its epoch began: a
// checkpoint records it after Sync, and an archive with fewer is an older
// copy of the one the checkpoint was written with.
func (a *Archive) Generation() uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.gen
}

// Mark is the mark given with the records of the last write (nil before
// the first): the archive holds nothing of an event after it.
func (a *Archive) Mark() []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.mark)
}

// PutProfile stores a profile's encoding under its digest.
func (a *Archive) PutProfile(digest string, enc []byte) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.profiles[digest] = slices.Clone(enc)
	return nil
}

// Profile returns the encoding of the profile stored under digest.
func (a *Archive) Profile(digest string) ([]byte, bool, error) {
	a.mu.Lock()
	if enc, ok := a.profiles[digest]; ok {
		a.mu.Unlock()
		return enc, true, nil
	}
	a.mu.Unlock()
	var enc []byte
	err := a.db.View(func(tx *bolt.Tx) error {
		enc = slices.Clone(tx.Bucket(bucketProfiles).Get([]byte(digest)))
		return nil
	})
	return enc, enc != nil, err
}

// Scan calls fn with the records of the turns whose id sorts after after,
// of workspace ws and status ("" for any), in id order, until fn returns
// false: those written and those gathered, merged (a gathered one replaces
// the written one of its turn). A filter reads through its index, so a
// page costs a page. fn runs in a read transaction: it must not keep rec.
func (a *Archive) Scan(after, ws, status string, fn func(id string, rec []byte) bool) error {
	type gathered struct {
		id string
		entry
	}
	var mem []gathered
	moved := map[string]bool{} // gathered turns, whatever their workspace
	a.mu.Lock()
	for id, e := range a.dirty {
		moved[id] = true
		if id > after && (ws == "" || e.ws == ws) && (status == "" || e.status == status) {
			mem = append(mem, gathered{id, e})
		}
	}
	a.mu.Unlock()
	slices.SortFunc(mem, func(x, y gathered) int { return strings.Compare(x.id, y.id) })
	// emit gives fn the gathered turns up to id (all when id is ""), then
	// the written one named id unless a gathered one replaced it.
	emit := func(id string, rec []byte) bool {
		for len(mem) > 0 && (id == "" || mem[0].id < id) {
			if !fn(mem[0].id, mem[0].rec) {
				return false
			}
			mem = mem[1:]
		}
		if id == "" || moved[id] {
			return true
		}
		return fn(id, rec)
	}
	return a.db.View(func(tx *bolt.Tx) error {
		turns := tx.Bucket(bucketTurns)
		if ws == "" && status == "" {
			c := turns.Cursor()
			for k, v := c.Seek([]byte(after)); k != nil; k, v = c.Next() {
				if string(k) == after {
					continue
				}
				_, _, rec, err := splitValue(v)
				if err != nil {
					return err
				}
				if !emit(string(k), rec) {
					return nil
				}
			}
			emit("", nil)
			return nil
		}
		prefix := indexPrefix(ws, status)
		c := tx.Bucket(bucketIndex).Cursor()
		for k, _ := c.Seek(append(slices.Clone(prefix), after...)); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			id := k[len(prefix):]
			if string(id) == after {
				continue
			}
			v := turns.Get(id)
			if v == nil {
				return fmt.Errorf("turnarchive: the index names turn %s, which is missing", id)
			}
			_, _, rec, err := splitValue(v)
			if err != nil {
				return err
			}
			if !emit(string(id), rec) {
				return nil
			}
		}
		emit("", nil)
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
	if err := a.flush(); err != nil {
		return err
	}
	a.retryAt = 0
	return nil
}

// Reset empties the archive under a new epoch, durably.
func (a *Archive) Reset() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	epoch := uuid.NewString()
	err := a.db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketTurns, bucketIndex, bucketProfiles} {
			if err := tx.DeleteBucket(b); err != nil {
				return err
			}
			if _, err := tx.CreateBucket(b); err != nil {
				return err
			}
		}
		meta := tx.Bucket(bucketMeta)
		for _, k := range [][]byte{keyTurns, keyGen} {
			if err := meta.Put(k, binary.AppendUvarint(nil, 0)); err != nil {
				return err
			}
		}
		if err := meta.Delete(keyMark); err != nil {
			return err
		}
		return meta.Put(keyEpoch, []byte(epoch))
	})
	if err != nil {
		return fmt.Errorf("turnarchive: resetting: %w", err)
	}
	a.epoch, a.n, a.dirty, a.profiles = epoch, 0, map[string]entry{}, map[string][]byte{}
	a.gen, a.mark, a.pending, a.retryAt = 0, nil, nil, 0
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
		turns, index := tx.Bucket(bucketTurns), tx.Bucket(bucketIndex)
		for id, e := range a.dirty {
			if v := turns.Get([]byte(id)); v != nil {
				ws, status, _, err := splitValue(v)
				if err != nil {
					return err
				}
				for _, k := range indexKeys(ws, status, id) {
					if err := index.Delete(k); err != nil {
						return err
					}
				}
			}
			v := appendString(make([]byte, 0, len(e.ws)+len(e.status)+len(e.rec)+4), e.ws)
			v = append(appendString(v, e.status), e.rec...)
			if err := turns.Put([]byte(id), v); err != nil {
				return err
			}
			for _, k := range indexKeys(e.ws, e.status, id) {
				if err := index.Put(k, nil); err != nil {
					return err
				}
			}
		}
		meta := tx.Bucket(bucketMeta)
		if err := meta.Put(keyGen, binary.AppendUvarint(nil, a.gen+1)); err != nil {
			return err
		}
		if a.pending != nil {
			if err := meta.Put(keyMark, a.pending); err != nil {
				return err
			}
		}
		return meta.Put(keyTurns, binary.AppendUvarint(nil, uint64(a.n)))
	})
	if err != nil {
		return fmt.Errorf("turnarchive: writing: %w", err)
	}
	a.gen++
	if a.pending != nil {
		a.mark = a.pending
	}
	clear(a.dirty)
	clear(a.profiles)
	return nil
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// indexPrefix is the prefix of the index keys of the turns of workspace ws
// and status (one of them may be "").
func indexPrefix(ws, status string) []byte {
	switch {
	case status == "":
		return appendString([]byte{'w'}, ws)
	case ws == "":
		return appendString([]byte{'s'}, status)
	}
	return appendString(appendString([]byte{'b'}, ws), status)
}

// indexKeys are a turn's three index keys.
func indexKeys(ws, status, id string) [][]byte {
	return [][]byte{append(indexPrefix(ws, ""), id...), append(indexPrefix("", status), id...), append(indexPrefix(ws, status), id...)}
}

// splitValue splits a turns value into its workspace, status and record.
func splitValue(v []byte) (ws, status string, rec []byte, err error) {
	var strs [2]string
	for i := range strs {
		n, k := binary.Uvarint(v)
		if k <= 0 || n > uint64(len(v)-k) {
			return "", "", nil, errors.New("turnarchive: a damaged record")
		}
		strs[i], v = string(v[k:k+int(n)]), v[k+int(n):]
	}
	return strs[0], strs[1], v, nil
}
