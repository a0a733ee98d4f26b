package pebblestore

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/google/uuid"

	"turnstile/domain/eventstore"
)

// An event record, the value of the log bucket:
//
//	[0]      recordVersion
//	[1:9]    revision, big endian
//	[9:17]   created, Unix nanoseconds, big endian
//	[17:33]  event id
//	uvarint length + stream name
//	uvarint length + event type
//	uvarint length + metadata
//	data (the rest)
//
// Append encodes the record in the caller's goroutine with revision and
// created left zero; the writer fills them in (patchRecord) once it knows
// them, so the single writer does no encoding.
const (
	recordVersion    = 1
	recordHeaderSize = 33
)

func encodeRecord(stream string, ev eventstore.EventData) []byte {
	n := recordHeaderSize +
		uvarintLen(len(stream)) + len(stream) +
		uvarintLen(len(ev.Type)) + len(ev.Type) +
		uvarintLen(len(ev.Metadata)) + len(ev.Metadata) +
		len(ev.Data)
	b := make([]byte, recordHeaderSize, n)
	b[0] = recordVersion
	copy(b[17:33], ev.ID[:])
	b = binary.AppendUvarint(b, uint64(len(stream)))
	b = append(b, stream...)
	b = binary.AppendUvarint(b, uint64(len(ev.Type)))
	b = append(b, ev.Type...)
	b = binary.AppendUvarint(b, uint64(len(ev.Metadata)))
	b = append(b, ev.Metadata...)
	return append(b, ev.Data...)
}

func patchRecord(rec []byte, rev uint64, created int64) {
	binary.BigEndian.PutUint64(rec[1:9], rev)
	binary.BigEndian.PutUint64(rec[9:17], uint64(created))
}

func uvarintLen(n int) int {
	var buf [binary.MaxVarintLen64]byte
	return binary.PutUvarint(buf[:], uint64(n))
}

// recordField reads one length-prefixed field of rec at off.
func recordField(rec []byte, off int) (field []byte, next int, err error) {
	n, w := binary.Uvarint(rec[off:])
	if w <= 0 || uint64(len(rec)-off-w) < n {
		return nil, 0, fmt.Errorf("%w: bad record field at offset %d", ErrCorrupt, off)
	}
	start := off + w
	return rec[start : start+int(n)], start + int(n), nil
}

// recordStream returns the stream name of rec without copying it.
func recordStream(rec []byte) ([]byte, error) {
	if len(rec) < recordHeaderSize || rec[0] != recordVersion {
		return nil, fmt.Errorf("%w: bad record header", ErrCorrupt)
	}
	stream, _, err := recordField(rec, recordHeaderSize)
	return stream, err
}

// decodeRecord copies the record at pos out of the (mmapped) value rec.
func decodeRecord(pos uint64, rec []byte) (eventstore.RecordedEvent, error) {
	if len(rec) < recordHeaderSize || rec[0] != recordVersion {
		return eventstore.RecordedEvent{}, fmt.Errorf("%w: bad record header at position %d", ErrCorrupt, pos)
	}
	stream, off, err := recordField(rec, recordHeaderSize)
	if err != nil {
		return eventstore.RecordedEvent{}, err
	}
	typ, off, err := recordField(rec, off)
	if err != nil {
		return eventstore.RecordedEvent{}, err
	}
	meta, off, err := recordField(rec, off)
	if err != nil {
		return eventstore.RecordedEvent{}, err
	}
	data := rec[off:]
	// One allocation holds data and metadata.
	buf := make([]byte, len(data)+len(meta))
	copy(buf, data)
	copy(buf[len(data):], meta)
	ev := eventstore.RecordedEvent{
		ID:       uuid.UUID(rec[17:33]),
		Stream:   string(stream),
		Revision: binary.BigEndian.Uint64(rec[1:9]),
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
