package logstore

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"time"

	"github.com/google/uuid"

	"turnstile/domain/eventstore"
)

// A segment file is a sequence of frames; each frame is one group commit
// (one write, one fdatasync):
//
//	[0:4]    frameMagic
//	[4:8]    body length, big endian
//	[8:16]   position of the frame's first record, big endian
//	[16:20]  number of records, big endian
//	[20:24]  CRC-32C of bytes [4:20] and the body
//	body:    per record, a 4-byte big-endian length, the CRC-32C of the
//	         record (4 bytes, big endian) and the record
//
// A record (the same fields as the bbolt store's log values):
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
// The frame's checksum covers the whole frame, so a frame torn anywhere (a
// short write, a page that never reached the disk) fails it as a whole: a
// group commit is all or nothing, as its acknowledgement is. Each record's
// own checksum is checked on every read, so a record damaged after Open
// (or before a checkpoint Open trusted) is reported, never served.
const (
	frameMagic       = 0x544c4731 // "TLG1"
	frameHeaderSize  = 24
	recordPrefixSize = 8
	recordVersion    = 1
	recordHeaderSize = 33
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// encodeRecord encodes ev with revision and created left zero; the writer
// fills them in (patchRecord) once it knows them, so the single writer does
// no encoding. The result starts with its 4-byte length prefix.
func encodeRecord(stream string, ev eventstore.EventData) []byte {
	n := recordHeaderSize +
		uvarintLen(len(stream)) + len(stream) +
		uvarintLen(len(ev.Type)) + len(ev.Type) +
		uvarintLen(len(ev.Metadata)) + len(ev.Metadata) +
		len(ev.Data)
	b := make([]byte, recordPrefixSize+recordHeaderSize, recordPrefixSize+n)
	binary.BigEndian.PutUint32(b, uint32(n))
	r := b[recordPrefixSize:]
	r[0] = recordVersion
	copy(r[17:33], ev.ID[:])
	b = binary.AppendUvarint(b, uint64(len(stream)))
	b = append(b, stream...)
	b = binary.AppendUvarint(b, uint64(len(ev.Type)))
	b = append(b, ev.Type...)
	b = binary.AppendUvarint(b, uint64(len(ev.Metadata)))
	b = append(b, ev.Metadata...)
	return append(b, ev.Data...)
}

// patchRecord sets the revision and creation time of a prefixed record and
// then its checksum.
func patchRecord(prefixed []byte, rev uint64, created int64) {
	r := prefixed[recordPrefixSize:]
	binary.BigEndian.PutUint64(r[1:9], rev)
	binary.BigEndian.PutUint64(r[9:17], uint64(created))
	binary.BigEndian.PutUint32(prefixed[4:8], crc32.Checksum(r, castagnoli))
}

func uvarintLen(n int) int {
	var buf [binary.MaxVarintLen64]byte
	return binary.PutUvarint(buf[:], uint64(n))
}

// frameHeader fills hdr for a frame of count records starting at first
// whose body is body.
func frameHeader(hdr []byte, first uint64, count int, body []byte) {
	binary.BigEndian.PutUint32(hdr[0:4], frameMagic)
	binary.BigEndian.PutUint32(hdr[4:8], uint32(len(body)))
	binary.BigEndian.PutUint64(hdr[8:16], first)
	binary.BigEndian.PutUint32(hdr[16:20], uint32(count))
	crc := crc32.Update(0, castagnoli, hdr[4:20])
	crc = crc32.Update(crc, castagnoli, body)
	binary.BigEndian.PutUint32(hdr[20:24], crc)
}

// frameInfo is a parsed frame header.
type frameInfo struct {
	bodyLen uint32
	first   uint64
	count   uint32
	crc     uint32
}

// parseFrameHeader reads hdr; ok is false when the magic is wrong.
func parseFrameHeader(hdr []byte) (frameInfo, bool) {
	if len(hdr) < frameHeaderSize || binary.BigEndian.Uint32(hdr[0:4]) != frameMagic {
		return frameInfo{}, false
	}
	return frameInfo{
		bodyLen: binary.BigEndian.Uint32(hdr[4:8]),
		first:   binary.BigEndian.Uint64(hdr[8:16]),
		count:   binary.BigEndian.Uint32(hdr[16:20]),
		crc:     binary.BigEndian.Uint32(hdr[20:24]),
	}, true
}

// checkFrame verifies body against the header hdr.
func checkFrame(hdr []byte, fi frameInfo, body []byte) bool {
	crc := crc32.Update(0, castagnoli, hdr[4:20])
	return crc32.Update(crc, castagnoli, body) == fi.crc
}

// recordAt returns the record (without its prefix) that starts with its
// prefix at b[0], having checked its checksum.
func recordAt(b []byte) ([]byte, error) {
	if len(b) < recordPrefixSize {
		return nil, fmt.Errorf("%w: short record prefix", ErrCorrupt)
	}
	n := binary.BigEndian.Uint32(b)
	if uint64(len(b)-recordPrefixSize) < uint64(n) || n < recordHeaderSize {
		return nil, fmt.Errorf("%w: bad record length %d", ErrCorrupt, n)
	}
	rec := b[recordPrefixSize : recordPrefixSize+int(n)]
	if crc32.Checksum(rec, castagnoli) != binary.BigEndian.Uint32(b[4:8]) {
		return nil, fmt.Errorf("%w: record checksum mismatch", ErrCorrupt)
	}
	if rec[0] != recordVersion {
		return nil, fmt.Errorf("%w: bad record version %d", ErrCorrupt, rec[0])
	}
	return rec, nil
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
	stream, _, err := recordField(rec, recordHeaderSize)
	return stream, err
}

func recordRevision(rec []byte) uint64 { return binary.BigEndian.Uint64(rec[1:9]) }

func recordID(rec []byte) uuid.UUID { return uuid.UUID(rec[17:33]) }

// decodeRecord copies the record at pos out of rec.
func decodeRecord(pos uint64, rec []byte) (eventstore.RecordedEvent, error) {
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
		ID:       recordID(rec),
		Stream:   string(stream),
		Revision: recordRevision(rec),
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
