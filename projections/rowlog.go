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
// other, in a byte slice each (auditLog, timelineLog), and decodes them when
// they are read. A byte slice holds no pointers, so the garbage collector
// neither scans it nor marks one object per string: an open turn of a
// thousand decisions held as structs was ~20 MB of small objects and
// pointers to mark at every cycle across 64 turns, and each cycle's
// marking is a stall every request in flight waits in (docs/benchmarks.md).
// Rows are never changed once added.

// auditLog is a held turn's audit rows.
type auditLog struct {
	turnID string // the rows' TurnID, stored once
	b      []byte
	ends   []int // ends[i] is the end of row i in b
}

// add appends r, with e's store position and id as its Position and
// EventID (r's own are ignored: they are formatted when read).
func (l *auditLog) add(e *turn.Event, r *AuditRow) {
	if len(l.ends) == 0 {
		l.turnID = r.TurnID
	}
	b := binary.AppendUvarint(l.b, e.Position.Commit)
	b = binary.AppendUvarint(b, e.Position.Prepare)
	b = append(b, e.ID[:]...)
	if r.TurnID == l.turnID {
		b = append(b, 0)
	} else {
		b = appendStr(append(b, 1), r.TurnID)
	}
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
	l.b = appendStr(b, r.Detail)
	l.ends = append(l.ends, len(l.b))
}

func (l *auditLog) len() int { return len(l.ends) }

// page decodes the rows from offset, at most limit (all when limit <= 0):
// nil when there are none at all, empty when the page is past the end.
func (l *auditLog) page(offset, limit int) []AuditRow {
	if len(l.ends) == 0 {
		return nil // as a nil slice of rows gave: a JSON null, not []
	}
	offset, end := pageBounds(len(l.ends), offset, limit)
	out := make([]AuditRow, 0, end-offset)
	for i := offset; i < end; i++ {
		out = append(out, l.row(i))
	}
	return out
}

func (l *auditLog) row(i int) AuditRow {
	d := rowDecoder{b: l.b[l.start(i):l.ends[i]]}
	var r AuditRow
	r.Position = eventstore.Position{Commit: d.uvarint(), Prepare: d.uvarint()}.String()
	r.EventID = uuid.UUID(d.bytes(16)).String()
	r.TurnID = l.turnID
	if d.byte() == 1 {
		r.TurnID = d.str()
	}
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

func (l *auditLog) start(i int) int {
	if i == 0 {
		return 0
	}
	return l.ends[i-1]
}

// timelineLog is a held turn's timeline rows.
type timelineLog struct {
	turnID string
	b      []byte
	ends   []int
}

func (l *timelineLog) add(r *TimelineRow) {
	if len(l.ends) == 0 {
		l.turnID = r.TurnID
	}
	b := l.b
	if r.TurnID == l.turnID {
		b = append(b, 0)
	} else {
		b = appendStr(append(b, 1), r.TurnID)
	}
	b = binary.AppendVarint(b, r.Version)
	b = appendTime(b, r.OccurredAt)
	b = appendStr(b, r.Kind)
	b = appendStr(b, r.Title)
	b = appendStr(b, r.Detail)
	l.b = appendStr(b, r.RequestID)
	l.ends = append(l.ends, len(l.b))
}

func (l *timelineLog) len() int { return len(l.ends) }

// all decodes every row (nil when there are none).
func (l *timelineLog) all() []TimelineRow {
	if len(l.ends) == 0 {
		return nil
	}
	out := make([]TimelineRow, 0, len(l.ends))
	start := 0
	for _, end := range l.ends {
		d := rowDecoder{b: l.b[start:end]}
		start = end
		r := TimelineRow{TurnID: l.turnID}
		if d.byte() == 1 {
			r.TurnID = d.str()
		}
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

func (d *rowDecoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.b = nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *rowDecoder) varint() int64 {
	v, n := binary.Varint(d.b)
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
