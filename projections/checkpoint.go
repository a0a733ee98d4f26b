package projections

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/google/uuid"

	"turnstile/domain"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

// The versions of the checkpoint encoding; a checkpoint of another version
// is refused (and the read models replayed in full). A projector whose
// archive does not outlive the process writes the first, carrying the
// summaries of its old turns; one with an archive on disk the second,
// naming the archive's epoch instead. Both are read (the first into the
// archive), and a binary that reads only the first refuses the second.
const (
	checkpointInline   = 1
	checkpointArchived = 2
)

// checkpointMagic starts every checkpoint's header line:
// "<magic> <format> <sha256 of the body> <length of the body>\n". The body
// is the length of a JSON part (uvarint), the JSON part (cpMeta), then the
// summaries of the old turns in a binary form (appendSummary).
const checkpointMagic = "turnstile-readmodels-checkpoint"

// ErrBadCheckpoint is wrapped by every reason Restore refuses a checkpoint.
var ErrBadCheckpoint = errors.New("projections: unusable checkpoint")

// cpMeta is a checkpoint's JSON part. Held turns are named only: their
// read models are folded again from their streams (up to Mark) on restore,
// which is faster than decoding them and keeps the checkpoint small.
type cpMeta struct {
	Format      int
	RecentTurns int
	// RecentBytes is the bound in bytes the checkpoint was written with;
	// 0 (also a checkpoint written before there was one) is none.
	RecentBytes int64 `json:",omitempty"`
	Position    eventstore.Position
	Mark        Mark
	Applied     uint64
	Profiles    []*domain.TurnPermissionProfileSnapshot // nil: none selected
	// Old counts the old turns: the summaries that follow (format 1), or
	// those the archive held (format 2, where it may hold more since).
	Old int
	// Archive is the epoch of the archive holding the summaries (format 2),
	// ArchiveGen its Generation once synced for this checkpoint.
	Archive    string `json:",omitempty"`
	ArchiveGen uint64 `json:",omitempty"`
	Held       []string
	Recent     []string
}

func profileOrNil(p domain.TurnPermissionProfileSnapshot) *domain.TurnPermissionProfileSnapshot {
	if p.Mode == "" {
		return nil // never selected (a zero profile would not decode)
	}
	return &p
}

// Checkpoint encodes the projector's compact state: the ids of held turns
// and of the recent queue and the position it reflects, with a header
// carrying its format and checksum, and the summaries of old turns with
// their interned profiles, or (an archive on disk) the archive's epoch once
// every summary so far is durable there. The state is copied under the
// read lock and encoded after it is released, so Apply waits only for the
// copy (and the archive's sync).
func (p *Projector) Checkpoint() ([]byte, Mark, error) {
	meta, olds, err := p.checkpointState()
	if err != nil {
		return nil, Mark{}, err
	}
	index := map[*domain.TurnPermissionProfileSnapshot]int{}
	for _, s := range olds {
		if _, ok := index[s.profile]; !ok {
			index[s.profile] = len(meta.Profiles)
			meta.Profiles = append(meta.Profiles, profileOrNil(*s.profile))
		}
	}
	j, err := json.Marshal(meta)
	if err != nil {
		return nil, Mark{}, fmt.Errorf("projections: encoding a checkpoint: %w", err)
	}
	body := binary.AppendUvarint(make([]byte, 0, len(j)+len(olds)*160+16), uint64(len(j)))
	body = append(body, j...)
	for i := range olds {
		if body, err = appendSummary(body, &olds[i], index[olds[i].profile]); err != nil {
			return nil, Mark{}, err
		}
	}
	sum := sha256.Sum256(body)
	out := make([]byte, 0, len(body)+128)
	out = fmt.Appendf(out, "%s %d %s %d\n", checkpointMagic, meta.Format, hex.EncodeToString(sum[:]), len(body))
	return append(out, body...), meta.Mark, nil
}

func (p *Projector) checkpointState() (*cpMeta, []summary, error) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.broken != nil {
		return nil, nil, fmt.Errorf("projections: no checkpoint of read models an event failed to apply to: %w", p.broken)
	}
	meta := &cpMeta{Format: checkpointInline, RecentTurns: p.recentMax, RecentBytes: max(p.recentBytesMax, 0), Position: p.pos, Mark: p.last, Applied: p.applied,
		Old: p.archive.Len(), Held: make([]string, 0, len(p.held)), Recent: append([]string(nil), p.recent[p.recentHead:]...)}
	for id := range p.held {
		meta.Held = append(meta.Held, id)
	}
	if meta.Archive = p.archive.Epoch(); meta.Archive != "" {
		// Apply waits for the sync: every summary evicted up to the
		// mark is then in the archive.
		meta.Format = checkpointArchived
		if err := p.archive.Sync(); err != nil {
			return nil, nil, fmt.Errorf("projections: syncing the archive of old turns: %w", err)
		}
		meta.ArchiveGen = p.archive.Generation()
		return meta, nil, nil
	}
	ss, err := p.oldTurns("", "", "", 0)
	if err != nil {
		return nil, nil, err
	}
	olds := make([]summary, 0, len(ss))
	for _, s := range ss {
		olds = append(olds, *s)
	}
	meta.Old = len(olds)
	return meta, olds, nil
}

// TurnReader reads the events of one turn's stream in order, calling apply
// for each, and stops at apply's first error. Restore uses it to fold held
// turns again; the caller implements it over the store.
type TurnReader func(turnID string, apply func(*turn.Event) error) error

// Restore loads a checkpoint into an empty projector after checking its
// header, format and checksum, folds its held turns again from their
// streams (read) up to the checkpoint's position, and returns the event it
// reflects: the caller must also check that the store has that event there
// (else discard the projector and replay everything). Restore changes
// nothing unless it succeeds. A checkpoint written with a smaller
// RecentTurns or RecentBytes than this projector's is refused (it has
// evicted turns this one would hold); one with larger bounds is trimmed to
// this one's. A checkpoint carrying its summaries replaces what the
// projector's archive holds with them; one naming an archive is refused
// unless it names this one's epoch.
func (p *Projector) Restore(b []byte, read TurnReader) (Mark, error) {
	meta, rest, err := decodeCheckpoint(b)
	if err != nil {
		return Mark{}, err
	}
	if p.recentMax >= 0 && meta.RecentTurns >= 0 && meta.RecentTurns < p.recentMax || p.recentMax < 0 && meta.RecentTurns >= 0 {
		return Mark{}, fmt.Errorf("%w: written holding %d recent turns, now %d", ErrBadCheckpoint, meta.RecentTurns, p.recentMax)
	}
	if p.recentBytesMax >= 0 && meta.RecentBytes > 0 && meta.RecentBytes < p.recentBytesMax || p.recentBytesMax < 0 && meta.RecentBytes > 0 {
		return Mark{}, fmt.Errorf("%w: written holding %d bytes of recent turns, now %d", ErrBadCheckpoint, meta.RecentBytes, p.recentBytesMax)
	}
	p.mu.RLock()
	used := p.applied != 0 || len(p.held) != 0 || p.restored
	p.mu.RUnlock()
	if used {
		return Mark{}, fmt.Errorf("%w: restoring into a projector that has applied events", ErrBadCheckpoint)
	}
	q := NewWith(Options{RecentTurns: p.recentMax, RecentBytes: p.recentBytesMax, Archive: p.archive})
	q.restored, q.cur = true, meta.Mark
	inline := map[string]bool{}
	switch meta.Format {
	case checkpointArchived:
		if meta.Archive == "" || meta.Archive != p.archive.Epoch() {
			return Mark{}, fmt.Errorf("%w: written with the archive of old turns %q, this one is %q", ErrBadCheckpoint, meta.Archive, p.archive.Epoch())
		}
		if n := p.archive.Len(); n < meta.Old {
			return Mark{}, fmt.Errorf("%w: written with %d old turns archived, the archive holds %d", ErrBadCheckpoint, meta.Old, n)
		}
		if len(rest) != 0 || len(meta.Profiles) != 0 {
			return Mark{}, fmt.Errorf("%w: summaries in a checkpoint of an archive", ErrBadCheckpoint)
		}
		if p.archive.Generation() < meta.ArchiveGen {
			return Mark{}, fmt.Errorf("%w: written after the archive's write %d, it holds %d: an older copy", ErrBadCheckpoint, meta.ArchiveGen, p.archive.Generation())
		}
	default:
		// The summaries are here: the archive is made to hold them
		// alone (a failure leaves it to be reset by a full replay).
		if err := p.archive.Reset(); err != nil {
			return Mark{}, fmt.Errorf("%w: resetting the archive of old turns: %w", ErrBadCheckpoint, err)
		}
		profiles := make([]*domain.TurnPermissionProfileSnapshot, len(meta.Profiles))
		for i, prof := range meta.Profiles {
			if prof == nil {
				prof = &domain.TurnPermissionProfileSnapshot{}
			}
			profiles[i] = prof
		}
		for range meta.Old {
			var s summary
			if rest, err = readSummary(rest, &s, profiles); err != nil {
				return Mark{}, err
			}
			if inline[s.id] {
				return Mark{}, fmt.Errorf("%w: turn %s twice", ErrBadCheckpoint, s.id)
			}
			inline[s.id] = true
			if err := q.putOld(&s); err != nil {
				return Mark{}, err
			}
		}
		if len(rest) != 0 {
			return Mark{}, fmt.Errorf("%w: %d summaries, %d bytes left over", ErrBadCheckpoint, len(inline), len(rest))
		}
	}
	for _, id := range meta.Held {
		if inline[id] {
			return Mark{}, fmt.Errorf("%w: turn %s twice", ErrBadCheckpoint, id)
		}
		if err := q.refold(id, meta.Mark.Position, read); err != nil {
			return Mark{}, err
		}
	}
	for _, id := range meta.Recent {
		t := q.held[id]
		if t == nil || t.queued || !t.Status.Terminal() {
			return Mark{}, fmt.Errorf("%w: recent turn %s is not a held ended turn", ErrBadCheckpoint, id)
		}
		t.queued = true
		q.recentBytes += t.bytes
	}
	for _, t := range q.held {
		if t.Status.Terminal() && !t.queued && t.Open == 0 {
			return Mark{}, fmt.Errorf("%w: ended turn %s is held but not recent", ErrBadCheckpoint, t.TurnID)
		}
	}
	q.recent, q.pos, q.last, q.applied = meta.Recent, meta.Position, meta.Mark, meta.Applied
	if err := q.evict(); err != nil {
		return Mark{}, fmt.Errorf("%w: archiving a turn: %w", ErrBadCheckpoint, err)
	}
	if meta.Format == checkpointInline {
		if err := p.archive.Sync(); err != nil {
			return Mark{}, fmt.Errorf("%w: syncing the archive of old turns: %w", ErrBadCheckpoint, err)
		}
	}

	p.mu.Lock()
	defer p.mu.Unlock()
	if p.applied != 0 || len(p.held) != 0 || p.restored {
		return Mark{}, fmt.Errorf("%w: restoring into a projector that has applied events", ErrBadCheckpoint)
	}
	p.held, p.approvals, p.pending, p.openBy, p.heldBy = q.held, q.approvals, q.pending, q.openBy, q.heldBy
	p.decoded, p.given, p.cur, p.restored = q.decoded, q.given, q.last, true
	p.restoredInline = meta.Format == checkpointInline && p.archive.Epoch() != ""
	p.recent, p.recentHead, p.pos, p.last, p.applied = q.recent, q.recentHead, q.pos, q.last, q.applied
	p.recentBytes = q.recentBytes
	return p.last, nil
}

// RestoredInline says the projector was restored from a checkpoint that
// carries its summaries while its archive outlives the process: the next
// checkpoint, which names the archive instead, is due even if no event
// arrives, or every start would read the summaries into the archive again.
func (p *Projector) RestoredInline() bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.restoredInline
}

// refold folds a held turn again from its stream, up to upTo.
func (q *Projector) refold(id string, upTo eventstore.Position, read TurnReader) error {
	if q.held[id] != nil {
		return fmt.Errorf("%w: turn %s twice", ErrBadCheckpoint, id)
	}
	errStop := errors.New("past the checkpoint")
	err := read(id, func(e *turn.Event) error {
		if e.Position == (eventstore.Position{}) {
			// Without positions the events after the checkpoint cannot be
			// told apart, and the tail would fold them twice.
			return fmt.Errorf("%w: the store gives no position with %s@%d", ErrBadCheckpoint, e.TurnID, e.Version)
		}
		if upTo.Less(e.Position) {
			return errStop
		}
		if e.TurnID != id {
			return fmt.Errorf("%w: an event of %s in the stream of %s", ErrBadCheckpoint, e.TurnID, id)
		}
		t := q.held[id]
		if t == nil {
			if _, ok := e.Payload.(*turn.TurnStarted); !ok {
				return fmt.Errorf("%w: %s@%d (%s) before the turn started", ErrBadCheckpoint, e.TurnID, e.Version, e.Type)
			}
			t = &heldTurn{TurnView: turn.NewSummary(id)}
			q.held[id] = t
		}
		return q.fold(t, e)
	})
	if err != nil && !errors.Is(err, errStop) {
		return fmt.Errorf("%w: folding turn %s again: %w", ErrBadCheckpoint, id, err)
	}
	if q.held[id] == nil {
		return fmt.Errorf("%w: the store has no events of held turn %s", ErrBadCheckpoint, id)
	}
	return nil
}

func decodeCheckpoint(b []byte) (*cpMeta, []byte, error) {
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 || nl > 256 {
		return nil, nil, fmt.Errorf("%w: no header", ErrBadCheckpoint)
	}
	fields := bytes.Fields(b[:nl])
	if len(fields) != 4 || string(fields[0]) != checkpointMagic {
		return nil, nil, fmt.Errorf("%w: not a checkpoint", ErrBadCheckpoint)
	}
	if string(fields[1]) != strconv.Itoa(checkpointInline) && string(fields[1]) != strconv.Itoa(checkpointArchived) {
		return nil, nil, fmt.Errorf("%w: format %s, this version reads %d and %d", ErrBadCheckpoint, fields[1], checkpointInline, checkpointArchived)
	}
	n, err := strconv.Atoi(string(fields[3]))
	body := b[nl+1:]
	if err != nil || n != len(body) {
		return nil, nil, fmt.Errorf("%w: truncated (%d bytes of %s)", ErrBadCheckpoint, len(body), fields[3])
	}
	sum := sha256.Sum256(body)
	if hex.EncodeToString(sum[:]) != string(fields[2]) {
		return nil, nil, fmt.Errorf("%w: checksum mismatch", ErrBadCheckpoint)
	}
	jl, k := binary.Uvarint(body)
	if k <= 0 || jl > uint64(len(body)-k) {
		return nil, nil, fmt.Errorf("%w: bad body", ErrBadCheckpoint)
	}
	var meta cpMeta
	if err := json.Unmarshal(body[k:k+int(jl)], &meta); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrBadCheckpoint, err)
	}
	if strconv.Itoa(meta.Format) != string(fields[1]) {
		return nil, nil, fmt.Errorf("%w: body format %d", ErrBadCheckpoint, meta.Format)
	}
	if meta.Applied > 0 && meta.Mark.EventID == uuid.Nil {
		return nil, nil, fmt.Errorf("%w: no last event", ErrBadCheckpoint)
	}
	return &meta, body[k+int(jl):], nil
}
