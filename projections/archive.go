package projections

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"turnstile/domain"
)

// Archive keeps the summaries of the turns a projector no longer holds (its
// old turns) as encoded records, one per turn id, and the profiles they
// name by digest. The projector calls Put and PutProfile only from Apply
// and Restore (one goroutine, under its write lock), and Get, Scan and Len
// from queries too, concurrently. A projector without one keeps its
// records in memory (Options.Archive); serve gives it one on disk, so that
// what it holds in memory follows what is live, not every turn ever run.
type Archive interface {
	// Epoch names what the archive holds since it was last reset: a
	// checkpoint written with it names it, and is used only with the same
	// epoch. "" for an archive that does not outlive the process: the
	// checkpoint then carries the summaries itself.
	Epoch() string
	// Get returns the record of a turn.
	Get(id string) (rec []byte, ok bool, err error)
	// Put stores the record of a turn of workspace ws and status,
	// replacing any; mark is the encoded Mark of the event it reflects.
	Put(id, ws, status string, rec, mark []byte) error
	// PutProfile stores a profile's encoding under its digest.
	PutProfile(digest string, enc []byte) error
	// Profile returns the encoding stored under digest.
	Profile(digest string) (enc []byte, ok bool, err error)
	// Generation counts the writes since the epoch began: a checkpoint
	// records it once synced, and an archive with fewer is an older copy.
	Generation() uint64
	// Mark is the mark given with the last records written (nil before
	// any): the archive holds nothing of an event after it.
	Mark() []byte
	// Scan calls fn with the records of the turns whose id sorts after
	// after, of workspace ws and status ("" for any), in id order, until
	// fn returns false; a filter costs what it lists, not every turn. fn
	// must not call the archive (it may run inside a read transaction).
	Scan(after, ws, status string, fn func(id string, rec []byte) bool) error
	// Len is how many turns it holds.
	Len() int
	// Sync makes every Put and PutProfile so far durable.
	Sync() error
	// Reset empties the archive under a new epoch.
	Reset() error
}

// ErrArchiveNotEmpty is Apply's error when a projector that was not
// restored from a checkpoint finds its archive holding turns: they are of
// another replay (reset the archive before replaying from the start).
var ErrArchiveNotEmpty = errors.New("projections: the archive of old turns holds a replay's summaries; reset it before replaying from the start")

// memArchive is the Archive a projector has without one: every record in
// memory, as compact as the checkpoint's encoding.
type memArchive struct {
	mu       sync.RWMutex
	turns    map[string]memRecord
	profiles map[string][]byte
	mark     []byte
}

type memRecord struct {
	ws, status string
	rec        []byte
}

func newMemArchive() *memArchive {
	return &memArchive{turns: map[string]memRecord{}, profiles: map[string][]byte{}}
}

func (m *memArchive) Epoch() string { return "" }

func (m *memArchive) Get(id string) ([]byte, bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	r, ok := m.turns[id]
	return r.rec, ok, nil
}

func (m *memArchive) Put(id, ws, status string, rec, mark []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.turns[id] = memRecord{ws: ws, status: status, rec: slices.Clone(rec)}
	m.mark = slices.Clone(mark)
	return nil
}

func (m *memArchive) Generation() uint64 { return 0 }

func (m *memArchive) Mark() []byte {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return slices.Clone(m.mark)
}

func (m *memArchive) PutProfile(digest string, enc []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.profiles[digest] = slices.Clone(enc)
	return nil
}

func (m *memArchive) Profile(digest string) ([]byte, bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	enc, ok := m.profiles[digest]
	return enc, ok, nil
}

func (m *memArchive) Scan(after, ws, status string, fn func(string, []byte) bool) error {
	m.mu.RLock()
	ids := make([]string, 0, len(m.turns))
	for id, r := range m.turns {
		if id > after && (ws == "" || r.ws == ws) && (status == "" || r.status == status) {
			ids = append(ids, id)
		}
	}
	m.mu.RUnlock()
	slices.Sort(ids)
	for _, id := range ids {
		m.mu.RLock()
		r, ok := m.turns[id]
		m.mu.RUnlock()
		if ok && !fn(id, r.rec) {
			return nil
		}
	}
	return nil
}

func (m *memArchive) Len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.turns)
}

func (m *memArchive) Sync() error { return nil }

func (m *memArchive) Reset() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.turns, m.profiles, m.mark = map[string]memRecord{}, map[string][]byte{}, nil
	return nil
}

// digestLen is the length of a profile's digest (sha256) at the start of a
// record.
const digestLen = 32

// encodeRecord is an old turn's record: its profile's digest, then the
// summary as the checkpoint encodes it.
func encodeRecord(s *summary, digest string) ([]byte, error) {
	if len(digest) != digestLen {
		return nil, fmt.Errorf("projections: turn %s: a profile digest of %d bytes", s.id, len(digest))
	}
	return appendSummary(append(make([]byte, 0, 192), digest...), s, 0)
}

// oldTurn decodes the record of an old turn, nil when there is none.
func (p *Projector) oldTurn(id string) (*summary, error) {
	rec, ok, err := p.archive.Get(id)
	if err != nil || !ok {
		return nil, err
	}
	return p.decodeRecord(rec)
}

// oldTurns decodes the archived turns Scan gives (after, ws, status as
// there) that are not held again, up to limit (every one when limit <= 0).
// The records are copied in the scan and decoded after it: decoding may
// read a profile from the archive, and a read inside the scan's read
// transaction could wait forever behind a write that waits for the scan
// (bbolt's remap). A record that does not decode is left out and its
// error returned with the others.
func (p *Projector) oldTurns(after, ws, status string, limit int) ([]*summary, error) {
	var recs [][]byte
	err := p.archive.Scan(after, ws, status, func(id string, rec []byte) bool {
		if p.held[id] != nil {
			return true // ended after the checkpoint restored from, and held again
		}
		recs = append(recs, slices.Clone(rec))
		return limit <= 0 || len(recs) < limit
	})
	out := make([]*summary, 0, len(recs))
	for _, rec := range recs {
		s, derr := p.decodeRecord(rec)
		if derr != nil {
			err = errors.Join(err, derr)
			continue
		}
		out = append(out, s)
	}
	return out, err
}

func (p *Projector) decodeRecord(rec []byte) (*summary, error) {
	if len(rec) < digestLen {
		return nil, fmt.Errorf("%w: a record of %d bytes", ErrBadCheckpoint, len(rec))
	}
	prof, err := p.profile(string(rec[:digestLen]))
	if err != nil {
		return nil, err
	}
	s := new(summary)
	rest, err := readSummary(rec[digestLen:], s, []*domain.TurnPermissionProfileSnapshot{prof})
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the summary of %s", ErrBadCheckpoint, len(rest), s.id)
	}
	return s, nil
}

// putOld stores the summary of an old turn, and its profile first unless
// the archive was given it lately, with the mark of the event being
// applied.
func (p *Projector) putOld(s *summary) error {
	enc, err := encodeProfile(s.profile)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(enc)
	digest := string(sum[:])
	p.pmu.Lock()
	given := p.given[digest]
	p.pmu.Unlock()
	if !given {
		if err := p.archive.PutProfile(digest, enc); err != nil {
			return err
		}
		p.pmu.Lock()
		if len(p.given) >= profileCache {
			clear(p.given)
		}
		p.given[digest] = true
		p.pmu.Unlock()
	}
	rec, err := encodeRecord(s, digest)
	if err != nil {
		return err
	}
	mark, err := json.Marshal(p.cur)
	if err != nil {
		return fmt.Errorf("projections: encoding a mark: %w", err)
	}
	return p.archive.Put(s.id, s.workspace, string(s.status), rec, mark)
}

// profileCache bounds the profiles of old turns kept decoded, and the
// digests the archive was given lately: a caller chooses each turn's
// profile, lists and all, so there may be one per turn.
const profileCache = 256

// profile returns the profile stored under digest, from the cache or the
// archive.
func (p *Projector) profile(digest string) (*domain.TurnPermissionProfileSnapshot, error) {
	p.pmu.Lock()
	prof := p.decoded[digest]
	p.pmu.Unlock()
	if prof != nil {
		return prof, nil
	}
	enc, ok, err := p.archive.Profile(digest)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w: a record naming a profile the archive does not hold", ErrBadCheckpoint)
	}
	if err := json.Unmarshal(enc, &prof); err != nil {
		return nil, fmt.Errorf("%w: the archive's profile: %v", ErrBadCheckpoint, err)
	}
	if prof == nil {
		prof = &domain.TurnPermissionProfileSnapshot{}
	}
	p.pmu.Lock()
	if len(p.decoded) >= profileCache {
		clear(p.decoded)
	}
	p.decoded[digest] = prof
	p.pmu.Unlock()
	return prof, nil
}

// encodeProfile is a profile's encoding in the archive: its JSON, "null"
// for the zero profile of a turn that never selected one (which would not
// decode). Its SHA-256 is the digest records name it by.
func encodeProfile(prof *domain.TurnPermissionProfileSnapshot) ([]byte, error) {
	b, err := json.Marshal(profileOrNil(*prof))
	if err != nil {
		return nil, fmt.Errorf("projections: encoding a profile: %w", err)
	}
	return b, nil
}

// ArchiveMark is the mark of the last event the archive's records reflect
// (false when it names none): a caller checks the store holds it, as for a
// checkpoint's, or the archive is of a history the store no longer has.
func (p *Projector) ArchiveMark() (Mark, bool, error) {
	b := p.archive.Mark()
	if b == nil {
		return Mark{}, false, nil
	}
	var m Mark
	if err := json.Unmarshal(b, &m); err != nil {
		return Mark{}, false, fmt.Errorf("%w: the archive's mark: %v", ErrBadCheckpoint, err)
	}
	return m, true, nil
}
