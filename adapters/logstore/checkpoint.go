package logstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
)

// The index checkpoint (file INDEX) lets Open skip the scan of the log up to
// the position it reflects. It is derived data: written in the background to
// a temporary file, fsynced and renamed into place, and never trusted
// unless it matches the log. Layout (integers big endian unless uvarint):
//
//	[0:4]   checkpointMagic
//	u64     last position N
//	u64     end: the global offset after the frame holding N
//	u64     offset of that frame, u32 its CRC (from its header)
//	u32     number of segments, then each one's base (u64)
//	N uvarints: the records' global offsets, each as the delta to the one
//	        before (the first as is)
//	uvarint number of streams; per stream: uvarint name length, name,
//	        uvarint count, count uvarints of positions as deltas
//	u32     CRC-32C of everything before it
//
// Open loads it only when its checksum holds, its segments are the log's
// first ones, and the log's frame at the recorded offset is intact, has the
// recorded CRC, ends at end and ends with position N. Anything else is
// logged and the index is rebuilt by a full scan.
const (
	checkpointMagic = 0x544c4958 // "TLIX"
	checkpointName  = "INDEX"
	// DefaultCheckpointEvery is the least number of events the writer
	// commits between background checkpoints.
	DefaultCheckpointEvery = 50_000
)

// lastFrame is the frame holding the last committed position.
type lastFrame struct {
	off uint64
	crc uint32
}

// indexSnapshot is a consistent copy of the index (slices share the
// index's arrays; only elements below their lengths are read, which the
// writer never changes).
type indexSnapshot struct {
	offs    offIndex
	end     uint64
	last    lastFrame
	bases   []uint64
	names   []string
	streams []streamIndex
}

// snapshot copies the index headers under imu.
func (s *Store) snapshot() indexSnapshot {
	s.imu.RLock()
	defer s.imu.RUnlock()
	snap := indexSnapshot{offs: s.offs.view(), end: s.end, last: s.last,
		names: make([]string, 0, len(s.streams)), streams: make([]streamIndex, 0, len(s.streams))}
	for _, seg := range s.segs {
		if seg.base > s.last.off {
			break
		}
		snap.bases = append(snap.bases, seg.base)
	}
	for name, si := range s.streams {
		snap.names = append(snap.names, name)
		snap.streams = append(snap.streams, si.view())
	}
	return snap
}

func (snap indexSnapshot) encode() []byte {
	n := snap.offs.len()
	b := make([]byte, 0, 64+n*3+uint64(len(snap.names))*48)
	b = binary.BigEndian.AppendUint32(b, checkpointMagic)
	b = binary.BigEndian.AppendUint64(b, n)
	b = binary.BigEndian.AppendUint64(b, snap.end)
	b = binary.BigEndian.AppendUint64(b, snap.last.off)
	b = binary.BigEndian.AppendUint32(b, snap.last.crc)
	b = binary.BigEndian.AppendUint32(b, uint32(len(snap.bases)))
	for _, base := range snap.bases {
		b = binary.BigEndian.AppendUint64(b, base)
	}
	prev := uint64(0)
	for p := uint64(1); p <= n; p++ {
		off := snap.offs.at(p)
		b = binary.AppendUvarint(b, off-prev)
		prev = off
	}
	b = binary.AppendUvarint(b, uint64(len(snap.names)))
	for i, name := range snap.names {
		b = binary.AppendUvarint(b, uint64(len(name)))
		b = append(b, name...)
		si := &snap.streams[i]
		b = binary.AppendUvarint(b, si.len())
		prev = 0
		for rev := range si.len() {
			p := si.at(rev)
			b = binary.AppendUvarint(b, p-prev)
			prev = p
		}
	}
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// writeCheckpoint writes the index as it is now to INDEX. It runs in the
// checkpointer goroutine and at Close, never in the writer.
func (s *Store) writeCheckpoint() error {
	snap := s.snapshot()
	if snap.offs.len() == 0 {
		return nil
	}
	if err := writeFileSync(filepath.Join(s.dir, checkpointName), snap.encode()); err != nil {
		return fmt.Errorf("logstore: index checkpoint: %w", err)
	}
	s.checkpointed.Store(snap.offs.len())
	return nil
}

// checkpointer writes a checkpoint whenever the writer asks, until Close.
func (s *Store) checkpointer() {
	defer close(s.checkpointerDone)
	for {
		select {
		case <-s.feed.Closing():
			return
		case <-s.checkpointDue:
			if err := s.writeCheckpoint(); err != nil {
				s.opts.Logger.Warn("logstore: index checkpoint failed (the next open scans more of the log)", "err", err)
			}
		}
	}
}

// maybeCheckpoint asks the checkpointer for a checkpoint when enough events
// have been committed since the last one: CheckpointEvery, or an eighth of
// the log when that is more, since each checkpoint rewrites the whole index
// (so the bytes checkpointed per event stay bounded as the log grows, and
// the scan of the log after a checkpoint stays under an eighth of it). Only
// the writer calls it.
func (s *Store) maybeCheckpoint() {
	done := s.checkpointed.Load()
	if s.offs.len()-done < max(uint64(s.opts.CheckpointEvery), done/8) {
		return
	}
	select {
	case s.checkpointDue <- struct{}{}:
	default:
	}
}

// errCheckpoint marks a checkpoint that does not match the log.
var errCheckpoint = errors.New("index checkpoint does not match the log")

// loadCheckpoint loads INDEX into the empty index when it matches the log
// (see the layout comment) and returns false, with the reason, when it does
// not exist or does not match.
func (s *Store) loadCheckpoint() (bool, error) {
	b, err := os.ReadFile(filepath.Join(s.dir, checkpointName))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	bad := func(why string, args ...any) (bool, error) {
		return false, fmt.Errorf("%w: %s", errCheckpoint, fmt.Sprintf(why, args...))
	}
	if len(b) < 40 || binary.BigEndian.Uint32(b) != checkpointMagic {
		return bad("bad header")
	}
	if crc32.Checksum(b[:len(b)-4], castagnoli) != binary.BigEndian.Uint32(b[len(b)-4:]) {
		return bad("checksum mismatch (a torn or damaged file)")
	}
	r := cpReader{b: b[:len(b)-4], off: 4}
	n, end, lastOff, lastCRC := r.u64(), r.u64(), r.u64(), r.u32()
	nsegs := int(r.u32())
	if r.err != nil || nsegs < 1 || nsegs > len(s.segs) {
		return bad("%d segments recorded, the log has %d", nsegs, len(s.segs))
	}
	for i := range nsegs {
		if base := r.u64(); r.err != nil || base != s.segs[i].base {
			return bad("segment %d differs", i)
		}
	}
	// The frame at lastOff must be the log's, intact, ending at end with
	// position n.
	seg := s.segs[nsegs-1]
	if lastOff < seg.base || end <= lastOff {
		return bad("last frame at %d outside its segment", lastOff)
	}
	fi, err := readFrameAt(seg, int64(lastOff-seg.base))
	if err != nil {
		return bad("last frame: %v", err)
	}
	if fi.crc != lastCRC || lastOff+frameHeaderSize+uint64(fi.bodyLen) != end || fi.first+uint64(fi.count)-1 != n {
		return bad("the frame at offset %d is not the one recorded", lastOff)
	}
	var offs offIndex
	offs.grow(n + n/8)
	prev := uint64(0)
	for range n {
		prev += r.uvarint()
		offs.add(prev)
	}
	nstreams := r.uvarint()
	if r.err != nil || nstreams > n {
		return bad("bad offsets")
	}
	streams := make(map[string]*streamIndex, nstreams)
	for range nstreams {
		name := r.str(int(r.uvarint()))
		count := r.uvarint()
		if r.err != nil || count > n {
			return bad("bad stream entry")
		}
		si := &streamIndex{d: make([]uint32, 0, count)}
		prev = 0
		for range count {
			prev += r.uvarint()
			si.add(prev)
		}
		streams[name] = si
	}
	if r.err != nil || r.off != len(r.b) {
		return bad("bad stream entries")
	}
	s.offs, s.streams, s.end, s.last = offs, streams, end, lastFrame{off: lastOff, crc: lastCRC}
	s.checkpointed.Store(n)
	s.fromCheckpoint = nsegs
	return true, nil
}

// readFrameAt reads and checks the frame at local offset off of seg.
func readFrameAt(seg *segment, off int64) (frameInfo, error) {
	hdr := make([]byte, frameHeaderSize)
	if _, err := seg.f.ReadAt(hdr, off); err != nil {
		return frameInfo{}, err
	}
	fi, ok := parseFrameHeader(hdr)
	if !ok {
		return frameInfo{}, fmt.Errorf("bad frame magic")
	}
	body := make([]byte, fi.bodyLen)
	if _, err := seg.f.ReadAt(body, off+frameHeaderSize); err != nil {
		return frameInfo{}, err
	}
	if !checkFrame(hdr, fi, body) {
		return frameInfo{}, fmt.Errorf("frame checksum mismatch")
	}
	return fi, nil
}

// cpReader decodes a checkpoint; the first error sticks.
type cpReader struct {
	b   []byte
	off int
	err error
}

func (r *cpReader) need(n int) bool {
	if r.err == nil && (n < 0 || len(r.b)-r.off < n) {
		r.err = errors.New("short checkpoint")
	}
	return r.err == nil
}

func (r *cpReader) u64() uint64 {
	if !r.need(8) {
		return 0
	}
	r.off += 8
	return binary.BigEndian.Uint64(r.b[r.off-8:])
}

func (r *cpReader) u32() uint32 {
	if !r.need(4) {
		return 0
	}
	r.off += 4
	return binary.BigEndian.Uint32(r.b[r.off-4:])
}

func (r *cpReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.err = errors.New("bad varint")
		return 0
	}
	r.off += n
	return v
}

func (r *cpReader) str(n int) string {
	if !r.need(n) {
		return ""
	}
	r.off += n
	return string(r.b[r.off-n : r.off])
}
