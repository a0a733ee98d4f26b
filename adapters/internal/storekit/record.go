package storekit

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/google/uuid"

	"turnstile/domain/eventstore"
)

// An event record, as both embedded stores keep it (a value of the bbolt
// store's log bucket; the body of a log store record, after its length and
// checksum):
//
//	[0]      RecordVersion
//	[1:9]    revision, big endian
//	[9:17]   created, Unix nanoseconds, big endian
//	[17:33]  event id
//	uvarint length + stream name
//	uvarint length + event type
//	uvarint length + metadata
//	data (the rest)
//
// Append encodes the record in the caller's goroutine with revision and
// created left zero; the writer fills them in (PatchRecord) once it knows
// them, so the single writer does no encoding.
const (
	RecordVersion    = 1
	RecordHeaderSize = 33
)

// RecordLen returns the length of the record of ev in stream.
func RecordLen(stream string, ev eventstore.EventData) int {
	return RecordHeaderSize +
		uvarintLen(len(stream)) + len(stream) +
		uvarintLen(len(ev.Type)) + len(ev.Type) +
		uvarintLen(len(ev.Metadata)) + len(ev.Metadata) +
		len(ev.Data)
}

// AppendRecord appends the record of ev in stream, with revision and
// created zero, to b (which should have RecordLen bytes of room).
func AppendRecord(b []byte, stream string, ev eventstore.EventData) []byte {
	var hdr [RecordHeaderSize]byte
	hdr[0] = RecordVersion
	copy(hdr[17:33], ev.ID[:])
	b = append(b, hdr[:]...)
	b = binary.AppendUvarint(b, uint64(len(stream)))
	b = append(b, stream...)
	b = binary.AppendUvarint(b, uint64(len(ev.Type)))
	b = append(b, ev.Type...)
	b = binary.AppendUvarint(b, uint64(len(ev.Metadata)))
	b = append(b, ev.Metadata...)
	return append(b, ev.Data...)
}

// PatchRecord sets the revision and creation time of rec.
func PatchRecord(rec []byte, rev uint64, created int64) {
	binary.BigEndian.PutUint64(rec[1:9], rev)
	binary.BigEndian.PutUint64(rec[9:17], uint64(created))
}

func uvarintLen(n int) int {
	var buf [binary.MaxVarintLen64]byte
	return binary.PutUvarint(buf[:], uint64(n))
}

// RecordRevision returns the revision of rec.
func RecordRevision(rec []byte) uint64 { return binary.BigEndian.Uint64(rec[1:9]) }

// RecordID returns the event id of rec.
func RecordID(rec []byte) uuid.UUID { return uuid.UUID(rec[17:33]) }

// Records reads records; a damaged one is an error wrapping Corrupt (the
// store's ErrCorrupt).
type Records struct {
	Corrupt error
}

// Field reads one length-prefixed field of rec at off.
func (r Records) Field(rec []byte, off int) (field []byte, next int, err error) {
	n, w := binary.Uvarint(rec[off:])
	if w <= 0 || uint64(len(rec)-off-w) < n {
		return nil, 0, fmt.Errorf("%w: bad record field at offset %d", r.Corrupt, off)
	}
	start := off + w
	return rec[start : start+int(n)], start + int(n), nil
}

// Stream returns the stream name of rec without copying it.
func (r Records) Stream(rec []byte) ([]byte, error) {
	if len(rec) < RecordHeaderSize || rec[0] != RecordVersion {
		return nil, fmt.Errorf("%w: bad record header", r.Corrupt)
	}
	stream, _, err := r.Field(rec, RecordHeaderSize)
	return stream, err
}

// Decode copies the record at pos out of rec (which may be mmapped or a
// reused buffer).
func (r Records) Decode(pos uint64, rec []byte) (eventstore.RecordedEvent, error) {
	if len(rec) < RecordHeaderSize || rec[0] != RecordVersion {
		return eventstore.RecordedEvent{}, fmt.Errorf("%w: bad record header at position %d", r.Corrupt, pos)
	}
	stream, off, err := r.Field(rec, RecordHeaderSize)
	if err != nil {
		return eventstore.RecordedEvent{}, err
	}
	typ, off, err := r.Field(rec, off)
	if err != nil {
		return eventstore.RecordedEvent{}, err
	}
	meta, off, err := r.Field(rec, off)
	if err != nil {
		return eventstore.RecordedEvent{}, err
	}
	data := rec[off:]
	// One allocation holds data and metadata.
	buf := make([]byte, len(data)+len(meta))
	copy(buf, data)
	copy(buf[len(data):], meta)
	ev := eventstore.RecordedEvent{
		ID:       RecordID(rec),
		Stream:   string(stream),
		Revision: RecordRevision(rec),
		Position: eventstore.Position{Commit: pos, Prepare: pos},
		Type:     string(typ),
		Data:     buf[:len(data):len(data)],
		Created:  time.Unix(0, int64(binary.BigEndian.Uint64(rec[9:17]))),
	}
	if len(meta) > 0 {
		ev.Metadata = buf[len(data):]
	}
	return ev, nil
}
