package logstore

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"turnstile/adapters/internal/storekit"
)

const segmentSuffix = ".seg"

func segmentName(base uint64) string { return fmt.Sprintf("%020d%s", base, segmentSuffix) }

// load checks the format, opens the segments and rebuilds the index by
// scanning them, truncating a torn tail.
func (s *Store) load() error {
	bases, err := listSegments(s.dir)
	if err != nil {
		return err
	}
	if err := s.checkFormat(len(bases) > 0); err != nil {
		return err
	}
	if len(bases) == 0 {
		return s.addSegment(0)
	}
	if bases[0] != 0 {
		return fmt.Errorf("%w: the first segment starts at offset %d, not 0", ErrCorrupt, bases[0])
	}
	for _, base := range bases {
		f, err := os.OpenFile(filepath.Join(s.dir, segmentName(base)), os.O_RDWR, 0)
		if err != nil {
			return err
		}
		s.segs = append(s.segs, &segment{base: base, f: f})
	}
	first, start := 0, int64(0)
	switch ok, err := s.loadCheckpoint(); {
	case ok:
		first = s.fromCheckpoint - 1
		start = int64(s.end - s.segs[first].base)
	case errors.Is(err, errCheckpoint):
		s.opts.Logger.Warn("logstore: index checkpoint discarded; rebuilding the index from the whole log", "err", err)
	case err != nil:
		return err
	}
	for i := first; i < len(s.segs); i++ {
		seg := s.segs[i]
		if i > first && seg.base != s.end {
			return fmt.Errorf("%w: segment %s starts at offset %d; the previous one ends at %d", ErrCorrupt, segmentName(seg.base), seg.base, s.end)
		}
		if err := s.scanSegment(seg, start, i == len(s.segs)-1); err != nil {
			return err
		}
		start = 0
	}
	return nil
}

// listSegments returns the bases of the segment files in dir, in order.
func listSegments(dir string) ([]uint64, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var bases []uint64
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), segmentSuffix)
		if !ok {
			continue
		}
		base, err := strconv.ParseUint(name, 10, 64)
		if err != nil || len(name) != 20 {
			return nil, fmt.Errorf("%w: unexpected file %s", ErrCorrupt, e.Name())
		}
		bases = append(bases, base)
	}
	slices.Sort(bases)
	return bases, nil
}

// checkFormat checks dir/FORMAT, writing it in a new directory (one with no
// segments).
func (s *Store) checkFormat(hasSegments bool) error {
	path := filepath.Join(s.dir, "FORMAT")
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		if string(b) != formatVersion {
			return fmt.Errorf("%w: %q", ErrFormat, b)
		}
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return err
	case hasSegments:
		return fmt.Errorf("%w: segments without a FORMAT file", ErrFormat)
	}
	return writeFileSync(path, []byte(formatVersion))
}

// writeFileSync writes path atomically and durably: a temporary file,
// fsynced, renamed over path, and the directory fsynced.
func writeFileSync(path string, b []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// addSegment creates the segment starting at base, makes it and its
// directory entry durable, and makes it the active one.
func (s *Store) addSegment(base uint64) error {
	path := filepath.Join(s.dir, segmentName(base))
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		_ = os.Remove(path)
		return err
	}
	if err := syncDir(s.dir); err != nil {
		_ = f.Close()
		_ = os.Remove(path)
		return err
	}
	s.imu.Lock()
	s.segs = append(s.segs, &segment{base: base, f: f})
	s.imu.Unlock()
	return nil
}

// scanSegment indexes every frame of seg. A bad frame is a torn tail (and
// truncated) only when last is set and no valid frame follows it.
func (s *Store) scanSegment(seg *segment, start int64, last bool) error {
	st, err := seg.f.Stat()
	if err != nil {
		return err
	}
	size := st.Size()
	if start > size {
		return fmt.Errorf("%w: segment %s is shorter (%d bytes) than the index checkpoint says (%d)", ErrCorrupt, segmentName(seg.base), size, start)
	}
	r := bufio.NewReaderSize(io.NewSectionReader(seg.f, start, size-start), 1<<20)
	var hdr [frameHeaderSize]byte
	var body []byte
	off := start
	for off < size {
		bad := func(why string) error {
			return s.badFrame(seg, off, size, last, why)
		}
		if size-off < frameHeaderSize {
			return bad("short frame header")
		}
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return err
		}
		fi, ok := parseFrameHeader(hdr[:])
		if !ok {
			return bad("bad frame magic")
		}
		if int64(fi.bodyLen) > size-off-frameHeaderSize {
			return bad("frame longer than the file")
		}
		body = slices.Grow(body[:0], int(fi.bodyLen))[:fi.bodyLen]
		if _, err := io.ReadFull(r, body); err != nil {
			return err
		}
		if !checkFrame(hdr[:], fi, body) {
			return bad("frame checksum mismatch")
		}
		if err := s.indexFrame(seg.base+uint64(off), fi, body); err != nil {
			return fmt.Errorf("segment %s offset %d: %w", segmentName(seg.base), off, err)
		}
		off += frameHeaderSize + int64(fi.bodyLen)
		s.end = seg.base + uint64(off)
	}
	return nil
}

// indexFrame adds the records of a checksummed frame at global offset at to
// the index, checking that positions and revisions continue without gaps.
func (s *Store) indexFrame(at uint64, fi frameInfo, body []byte) error {
	if fi.first != s.offs.len()+1 {
		return fmt.Errorf("%w: frame starts at position %d, want %d", ErrCorrupt, fi.first, s.offs.len()+1)
	}
	off := 0
	for i := range fi.count {
		rec, err := recordAt(body[off:])
		if err != nil {
			return err
		}
		stream, err := records.Stream(rec)
		if err != nil {
			return err
		}
		pos := fi.first + uint64(i)
		si := s.streams[string(stream)]
		if si == nil {
			si = &streamIndex{}
			s.streams[string(stream)] = si
		}
		if rev := storekit.RecordRevision(rec); rev != si.len() {
			return fmt.Errorf("%w: position %d is revision %d of %s, want %d", ErrCorrupt, pos, rev, stream, si.len())
		}
		si.add(pos)
		s.offs.add(at + frameHeaderSize + uint64(off))
		off += recordPrefixSize + len(rec)
	}
	s.last = lastFrame{off: at, crc: fi.crc}
	if off != len(body) {
		return fmt.Errorf("%w: %d bytes after the frame's last record", ErrCorrupt, len(body)-off)
	}
	return nil
}

// badFrame handles a frame of seg at off that cannot be read: in the last
// segment, with no valid frame after it, it is a write torn by a crash and is
// truncated; anything else is corruption.
func (s *Store) badFrame(seg *segment, off, size int64, last bool, why string) error {
	name := segmentName(seg.base)
	if !last {
		return fmt.Errorf("%w: segment %s offset %d: %s (not the last segment)", ErrCorrupt, name, off, why)
	}
	tail := make([]byte, size-off)
	if _, err := seg.f.ReadAt(tail, off); err != nil {
		return err
	}
	if at := findValidFrame(tail[1:]); at >= 0 {
		return fmt.Errorf("%w: segment %s offset %d: %s, but a valid frame follows at offset %d: refusing to drop it", ErrCorrupt, name, off, why, off+1+int64(at))
	}
	if err := seg.f.Truncate(off); err != nil {
		return fmt.Errorf("truncate torn tail: %w", err)
	}
	if err := seg.f.Sync(); err != nil {
		return fmt.Errorf("truncate torn tail: %w", err)
	}
	s.opts.Logger.Warn("logstore: truncated a torn write at the end of the log (never acknowledged)",
		"segment", name, "offset", off, "bytes", size-off, "reason", why)
	s.end = seg.base + uint64(off)
	return nil
}

// findValidFrame returns the offset in b of the first complete frame whose
// checksum holds, or -1.
func findValidFrame(b []byte) int {
	var magic [4]byte
	binary.BigEndian.PutUint32(magic[:], frameMagic)
	for i := 0; ; {
		j := bytes.Index(b[i:], magic[:])
		if j < 0 {
			return -1
		}
		at := i + j
		if fi, ok := parseFrameHeader(b[at:]); ok && uint64(fi.bodyLen) <= uint64(len(b)-at-frameHeaderSize) {
			if checkFrame(b[at:], fi, b[at+frameHeaderSize:at+frameHeaderSize+int(fi.bodyLen)]) {
				return at
			}
		}
		i = at + 1
	}
}
