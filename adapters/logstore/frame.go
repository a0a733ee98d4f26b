package logstore

import (
	"encoding/binary"
	"fmt"
	"syscall"

	"github.com/google/uuid"

	"turnstile/domain/eventstore"
)

// frame is the group commit the writer is building: the bytes of one frame
// and what it adds to the index once it is durable.
type frame struct {
	// buf is the frame: header, then the records with their prefixes.
	buf     []byte
	first   uint64
	count   int
	created int64
	// recOffs are the offsets in buf of the records' length prefixes.
	recOffs []int
	// streams are the revisions the frame adds, by stream.
	streams map[string]*pendingStream
	appends int
}

// pendingStream is what a frame adds to one stream.
type pendingStream struct {
	pos []uint64
	ids []uuid.UUID
}

// reset empties f for a frame whose first record will be at position first.
func (f *frame) reset(first uint64, created int64) {
	if cap(f.buf) > 4<<20 {
		f.buf = nil // do not keep a rare large frame's buffer
	}
	f.buf = append(f.buf[:0], make([]byte, frameHeaderSize)...)
	f.first, f.count, f.created, f.appends = first, 0, created, 0
	f.recOffs = f.recOffs[:0]
	if f.streams == nil {
		f.streams = map[string]*pendingStream{}
	}
	clear(f.streams)
}

// add appends r's records to the frame at revisions firstRev, firstRev+1, …
func (f *frame) add(r *appendReq, firstRev uint64) eventstore.AppendResult {
	ps := f.streams[r.stream]
	if ps == nil {
		ps = &pendingStream{}
		f.streams[r.stream] = ps
	}
	var pos uint64
	for i, rec := range r.records {
		created := f.created
		if r.created != nil {
			created = r.created[i]
		}
		patchRecord(rec, firstRev+uint64(i), created)
		f.recOffs = append(f.recOffs, len(f.buf))
		f.buf = append(f.buf, rec...)
		pos = f.first + uint64(f.count)
		f.count++
		ps.pos = append(ps.pos, pos)
		ps.ids = append(ps.ids, r.ids[i])
	}
	f.appends++
	return eventstore.AppendResult{
		NextExpectedRevision: firstRev + uint64(len(r.records)) - 1,
		Position:             eventstore.Position{Commit: pos, Prepare: pos},
	}
}

// commitFrame writes f at the end of the log with one write and one
// fdatasync, then adds it to the index and wakes the subscriptions. A failed
// write is rolled back; a failed fdatasync stops the store (see the package
// comment).
func (s *Store) commitFrame(f *frame) error {
	frameHeader(f.buf[:frameHeaderSize], f.first, f.count, f.buf[frameHeaderSize:])
	seg := s.segs[len(s.segs)-1]
	if local := s.end - seg.base; local > 0 && int64(local)+int64(len(f.buf)) > s.opts.SegmentSize {
		if err := s.addSegment(s.end); err != nil {
			return fmt.Errorf("logstore: new segment: %w: %w", eventstore.ErrUnavailable, err)
		}
		seg = s.segs[len(s.segs)-1]
	}
	local := int64(s.end - seg.base)
	if _, err := seg.f.WriteAt(f.buf, local); err != nil {
		if terr := seg.f.Truncate(local); terr != nil {
			s.fail(fmt.Errorf("write: %w; rolling it back: %w", err, terr))
			return s.failure()
		}
		return fmt.Errorf("logstore: append: %w: %w", eventstore.ErrUnavailable, err)
	}
	if err := fdatasync(seg); err != nil {
		s.fail(err)
		return s.failure()
	}
	s.imu.Lock()
	for _, ro := range f.recOffs {
		s.offs.add(s.end + uint64(ro))
	}
	for name, ps := range f.streams {
		si := s.streams[name]
		if si == nil {
			si = &streamIndex{}
			s.streams[name] = si
		}
		for _, p := range ps.pos {
			si.add(p)
		}
	}
	s.last = lastFrame{off: s.end, crc: binary.BigEndian.Uint32(f.buf[20:24])}
	s.end += uint64(len(f.buf))
	s.imu.Unlock()
	s.maybeCheckpoint()
	s.commits.Add(1)
	s.appends.Add(uint64(f.appends))
	s.events.Add(uint64(f.count))
	s.feed.Publish(f.first + uint64(f.count) - 1)
	return nil
}

// fdatasync is a variable so that this package's tests can make it fail.
var fdatasync = func(seg *segment) error {
	for {
		err := syscall.Fdatasync(int(seg.f.Fd()))
		if err != syscall.EINTR {
			return err
		}
	}
}

// fail stops the store: every later append fails with err.
func (s *Store) fail(err error) {
	s.failed.CompareAndSwap(nil, &err)
	s.opts.Logger.Error("logstore: stopped taking appends", "err", err)
}
