package projections

import (
	"encoding/binary"
	"time"

	"github.com/google/uuid"

	"turnstile/domain"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

// A held turn keeps its audit and timeline rows encoded, one after the
// other, in byte slices (auditLog, timelineLog), and decodes them when
// they are read. A byte slice holds no pointers, so the garbage collector
// neither scans it nor marks one object per string: an open turn of a
// thousand decisions held as structs was ~20 MB of small objects and
// pointers to mark at every cycle across 64 turns, and each cycle's
// marking is a stall every request in flight waits in (docs/benchmarks.md).
// Rows are never changed once added.

// rowStore holds encoded rows in chunks (1 KiB, doubling up to rowChunk):
// a row added is copied once and never moved again as the rows grow (one
// growing slice was allocated and copied twice over, and kept up to half
// of it unused).
type rowStore struct {
	chunks [][]byte
	refs   []rowRef
}

// rowRef is where a row is: chunks[chunk][start:end].
type rowRef struct{ chunk, start, end uint32 }

// rowChunk is the largest chunk (a larger row gets one of its own).
const rowChunk = 16 << 10

// put appends the encoded row b.
func (s *rowStore) put(b []byte) {
	n := len(s.chunks)
	if n == 0 || len(s.chunks[n-1])+len(b) > cap(s.chunks[n-1]) {
		size := 1 << 10 // the first chunks double up to rowChunk: a short turn stays small
		if n > 0 {
			size = min(rowChunk, 2*cap(s.chunks[n-1]))
		}
		s.chunks = append(s.chunks, make([]byte, 0, max(size, len(b))))
		n++
	}
	c := s.chunks[n-1]
	s.refs = append(s.refs, rowRef{uint32(n - 1), uint32(len(c)), uint32(len(c) + len(b))})
	s.chunks[n-1] = append(c, b...)
}

// get returns row i's encoding.
func (s *rowStore) get(i int) []byte {
	r := s.refs[i]
	return s.chunks[r.chunk][r.start:r.end]
}

func (s *rowStore) len() int { return len(s.refs) }

// turnRows are the rows of one turn: their TurnID is stored once, with the
// first row, and in a row only when it differs (it never does).
type turnRows struct {
	turnID string
	rows   rowStore
}

// start begins the encoding of a row of turnID in scratch.
func (l *turnRows) start(scratch []byte, turnID string) []byte {
	if l.rows.len() == 0 {
		l.turnID = turnID
	}
	if turnID == l.turnID {
		return append(scratch, 0)
	}
	return appendStr(append(scratch, 1), turnID)
}

// turn reads what start wrote.
func (l *turnRows) turn(d *rowDecoder) string {
	if d.byte() == 1 {
		return d.str()
	}
	return l.turnID
}

func (l *turnRows) len() int { return l.rows.len() }

// auditLog is a held turn's audit rows.
type auditLog struct{ turnRows }

// add appends r, with e's store position and id as its Position and
// EventID (r's own are ignored: they are formatted when read).
func (l *auditLog) add(e *turn.Event, r *AuditRow) {
	var scratch [512]byte // most rows fit: encoded without an allocation
	b := l.start(scratch[:0], r.TurnID)
	b = binary.AppendUvarint(b, e.Position.Commit)
	b = binary.AppendUvarint(b, e.Position.Prepare)
	b = append(b, e.ID[:]...)
	b = binary.AppendVarint(b, r.Version)
	b = appendStr(b, r.Kind)
	b = appendTime(b, r.OccurredAt)
	b = appendStr(b, r.Actor.Name)
	b = appendStr(b, string(r.Actor.Role))
	b = appendStr(b, string(r.ProfileMode))
	b = appendStr(b, string(r.ProfileSource))
	b = appendStr(b, r.ItemID)
	b = appendStr(b, r.ToolCallID)
	b = appendStr(b, r.ToolName)
	b = appendStr(b, string(r.ActionKind))
	if k := r.RequestKey; k == nil {
		b = append(b, 0)
	} else {
		b = appendStr(appendStr(append(b, 1), string(k.ActionKind)), k.ScopeHash)
	}
	b = appendStr(b, r.RequestID)
	b = appendStr(b, r.Decision)
	b = appendStr(b, string(r.Reason))
	flags := byte(0)
	if r.Cached {
		flags |= 1
	}
	if r.Scope != nil {
		flags |= 2
	}
	b = append(b, flags)
	if r.Scope != nil {
		b = binary.AppendUvarint(b, uint64(len(r.Scope)))
		for _, s := range r.Scope {
			b = appendStr(appendStr(b, s.Key), s.Value)
		}
	}
	l.rows.put(appendStr(b, r.Detail))
}

// page decodes the rows from offset, at most limit (all when limit <= 0):
// nil when there are none at all, empty when the page is past the end.
func (l *auditLog) page(offset, limit int) []AuditRow {
	if l.rows.len() == 0 {
		return nil // as a nil slice of rows gave: a JSON null, not []
	}
	offset, end := pageBounds(l.rows.len(), offset, limit)
	out := make([]AuditRow, 0, end-offset)
	for i := offset; i < end; i++ {
		out = append(out, l.row(i))
	}
	return out
}

func (l *auditLog) row(i int) AuditRow {
	d := rowDecoder{b: l.rows.get(i)}
	r := AuditRow{TurnID: l.turn(&d)}
	r.Position = eventstore.Position{Commit: d.uvarint(), Prepare: d.uvarint()}.String()
	r.EventID = uuid.UUID(d.bytes(16)).String()
	r.Version = d.varint()
	r.Kind = d.str()
	r.OccurredAt = d.time()
	r.Actor = domain.Actor{Name: d.str(), Role: domain.Role(d.str())}
	r.ProfileMode, r.ProfileSource = domain.Mode(d.str()), domain.ProfileSource(d.str())
	r.ItemID, r.ToolCallID, r.ToolName = d.str(), d.str(), d.str()
	r.ActionKind = domain.ActionKind(d.str())
	if d.byte() == 1 {
		r.RequestKey = &RequestKey{ActionKind: domain.ActionKind(d.str()), ScopeHash: d.str()}
	}
	r.RequestID, r.Decision, r.Reason = d.str(), d.str(), domain.Reason(d.str())
	flags := d.byte()
	r.Cached = flags&1 != 0
	if flags&2 != 0 {
		n := d.uvarint()
		r.Scope = make(domain.Scope, 0, min(n, uint64(len(d.b))))
		for range n {
			r.Scope = append(r.Scope, domain.ScopeEntry{Key: d.str(), Value: d.str()})
		}
	}
	r.Detail = d.str()
	return r
}

// timelineLog is a held turn's timeline rows.
type timelineLog struct{ turnRows }

func (l *timelineLog) add(r *TimelineRow) {
	var scratch [512]byte
	b := l.start(scratch[:0], r.TurnID)
	b = binary.AppendVarint(b, r.Version)
	b = appendTime(b, r.OccurredAt)
	b = appendStr(b, r.Kind)
	b = appendStr(b, r.Title)
	b = appendStr(b, r.Detail)
	l.rows.put(appendStr(b, r.RequestID))
}

// all decodes every row (nil when there are none).
func (l *timelineLog) all() []TimelineRow {
	if l.rows.len() == 0 {
		return nil
	}
	out := make([]TimelineRow, 0, l.rows.len())
	for i := range l.rows.len() {
		d := rowDecoder{b: l.rows.get(i)}
		r := TimelineRow{TurnID: l.turn(&d)}
		r.Version = d.varint()
		r.OccurredAt = d.time()
		r.Kind, r.Title, r.Detail, r.RequestID = d.str(), d.str(), d.str(), d.str()
		out = append(out, r)
	}
	return out
}

// pageBounds is the range of rows from offset, at most limit (all when
// limit <= 0), of n rows.
func pageBounds(n, offset, limit int) (int, int) {
	offset = min(max(offset, 0), n)
	end := n
	if limit > 0 {
		end = min(end, offset+limit)
	}
	return offset, end
}

func appendStr(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// appendTime encodes t: the zero time, a UTC time, or an instant with its
// zone's name and offset (read back in a fixed zone of that name and
// offset: the same JSON and the same instant; events carry UTC times).
func appendTime(b []byte, t time.Time) []byte {
	switch {
	case t.IsZero():
		return append(b, 0)
	case t.Location() == time.UTC:
		b = append(b, 1)
	default:
		name, off := t.Zone()
		b = appendStr(binary.AppendVarint(append(b, 2), int64(off)), name)
	}
	return binary.AppendUvarint(binary.AppendVarint(b, t.Unix()), uint64(t.Nanosecond()))
}

// rowDecoder reads what the logs above wrote. They wrote it themselves, so
// it is never malformed; a read past the end yields zero values rather
// than a panic all the same.
type rowDecoder struct{ b []byte }

func (d *rowDecoder) byte() byte {
	if len(d.b) == 0 {
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *rowDecoder) uvarint() uint64 { return readVarint(d, binary.Uvarint) }

func (d *rowDecoder) varint() int64 { return readVarint(d, binary.Varint) }

// readVarint reads one varint with read (binary.Uvarint or binary.Varint).
func readVarint[T uint64 | int64](d *rowDecoder, read func([]byte) (T, int)) T {
	v, n := read(d.b)
	if n <= 0 {
		d.b = nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *rowDecoder) bytes(n int) []byte {
	if n > len(d.b) {
		d.b = nil
		return make([]byte, n)
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *rowDecoder) str() string {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.b = nil
		return ""
	}
	return string(d.bytes(int(n)))
}

func (d *rowDecoder) time() time.Time {
	var loc *time.Location
	switch d.byte() {
	case 0:
		return time.Time{}
	case 1:
		loc = time.UTC
	default:
		off := int(d.varint())
		loc = time.FixedZone(d.str(), off)
	}
	sec := d.varint()
	return time.Unix(sec, int64(d.uvarint())).In(loc)
}
