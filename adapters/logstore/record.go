package logstore

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"turnstile/adapters/internal/storekit"
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
// A record is storekit's (the bbolt store's log values; see
// storekit.RecordVersion for its layout).
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
	recordHeaderSize = storekit.RecordHeaderSize
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// appendRecord appends ev's record to b, with revision and created left
// zero; the writer fills them in (patchRecord) once it knows them, so the
// single writer does no encoding. The record starts with its length prefix
// (the length, then a zero checksum that patchRecord sets).
func appendRecord(b []byte, stream string, ev eventstore.EventData) []byte {
	n := storekit.RecordLen(stream, ev)
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	b = append(b, 0, 0, 0, 0)
	return storekit.AppendRecord(b, stream, ev)
}

// patchRecord sets the revision and creation time of a prefixed record and
// then its checksum.
func patchRecord(prefixed []byte, rev uint64, created int64) {
	r := prefixed[recordPrefixSize:]
	storekit.PatchRecord(r, rev, created)
	binary.BigEndian.PutUint32(prefixed[4:8], crc32.Checksum(r, castagnoli))
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
	if rec[0] != storekit.RecordVersion {
		return nil, fmt.Errorf("%w: bad record version %d", ErrCorrupt, rec[0])
	}
	return rec, nil
}

// records reads records; damage is ErrCorrupt.
var records = storekit.Records{Corrupt: ErrCorrupt}
