package logstore

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/google/uuid"

	"turnstile/domain/eventstore"
)

// Reads take the positions they want from the index under imu, then read
// the records with pread (from the page cache, usually), reading runs of
// adjacent records with one call; the context is checked before each.
const (
	// readBatch is how many positions a read locates under one hold of imu.
	readBatch = 4096
	// readChunk bounds one pread of a run of adjacent records (a larger
	// record is read on its own).
	readChunk = 1 << 20
)

// readBufs holds read buffers of readChunk bytes, so that paged reads do
// not allocate (and clear) a new one each call.
var readBufs = sync.Pool{New: func() any { b := make([]byte, readChunk); return &b }}

func getReadBuf() *[]byte { return readBufs.Get().(*[]byte) }

// putReadBuf returns a buffer to the pool unless a large record grew it.
func putReadBuf(p *[]byte, b []byte) {
	if cap(b) == readChunk {
		*p = b
		readBufs.Put(p)
	}
}

// loc is where a record lies: its global offset and the bytes up to the next
// record (or the end of its segment), which hold it.
type loc struct {
	pos, off, span uint64
	seg            *segment
	segIdx         int
}

// segOf returns the index of the segment holding global offset off. The
// caller holds imu or is the writer.
func (s *Store) segOf(off uint64) int {
	return sort.Search(len(s.segs), func(i int) bool { return s.segs[i].base > off }) - 1
}

// locate appends the locations of positions poss to out. The caller holds
// imu (read) or is the writer; every position is committed.
func (s *Store) locate(out []loc, poss ...uint64) []loc {
	for _, p := range poss {
		off := s.offs.at(p)
		i := s.segOf(off)
		segEnd := s.end
		if i+1 < len(s.segs) {
			segEnd = s.segs[i+1].base
		}
		next := segEnd
		if p < s.offs.len() {
			if o := s.offs.at(p + 1); o < segEnd {
				next = o
			}
		}
		out = append(out, loc{pos: p, off: off, span: next - off, seg: s.segs[i], segIdx: i})
	}
	return out
}

// readLocs reads the records at locs, in order, and calls fn with each
// (rec is valid only during the call).
func readLocs(ctx context.Context, locs []loc, buf []byte, fn func(l loc, rec []byte) error) ([]byte, error) {
	for i := 0; i < len(locs); {
		if err := ctx.Err(); err != nil {
			return buf, err
		}
		total, j := locs[i].span, i+1
		for j < len(locs) && locs[j].segIdx == locs[i].segIdx && locs[j].off == locs[j-1].off+locs[j-1].span && total+locs[j].span <= readChunk {
			total += locs[j].span
			j++
		}
		if uint64(cap(buf)) < total {
			buf = make([]byte, total)
		}
		b := buf[:total]
		if _, err := locs[i].seg.f.ReadAt(b, int64(locs[i].off-locs[i].seg.base)); err != nil {
			return buf, fmt.Errorf("read at offset %d: %w", locs[i].off, err)
		}
		for k := i; k < j; k++ {
			rec, err := recordAt(b[locs[k].off-locs[i].off:])
			if err != nil {
				return buf, fmt.Errorf("position %d: %w", locs[k].pos, err)
			}
			if err := fn(locs[k], rec); err != nil {
				return buf, err
			}
		}
		i = j
	}
	return buf, nil
}

// readID returns the event id at committed position pos. Only the writer
// calls it.
func (s *Store) readID(pos uint64) (uuid.UUID, error) {
	l := s.locate(nil, pos)[0]
	var b [recordPrefixSize + recordHeaderSize]byte
	if _, err := l.seg.f.ReadAt(b[:], int64(l.off-l.seg.base)); err != nil {
		return uuid.Nil, fmt.Errorf("logstore: read position %d: %w", pos, err)
	}
	return uuid.UUID(b[recordPrefixSize+17 : recordPrefixSize+33]), nil
}

// ReadStream returns up to max events of stream with revision >= from, in
// order. A missing stream yields no events and no error. max <= 0 means no
// limit.
func (s *Store) ReadStream(ctx context.Context, stream string, from uint64, max int) ([]eventstore.RecordedEvent, error) {
	var out []eventstore.RecordedEvent
	err := s.gate.Do(ctx, func() error {
		bp := getReadBuf()
		buf := *bp
		defer func() { putReadBuf(bp, buf) }()
		for {
			var locs []loc
			s.imu.RLock()
			si := s.streams[stream]
			if si != nil && from < si.len() {
				n := si.len() - from
				if max > 0 && uint64(max-len(out)) < n {
					n = uint64(max - len(out))
				}
				if out == nil {
					out = make([]eventstore.RecordedEvent, 0, min(n, readBatch))
				}
				poss := make([]uint64, 0, min(n, readBatch))
				for rev := from; rev < from+min(n, readBatch); rev++ {
					poss = append(poss, si.at(rev))
				}
				locs = s.locate(make([]loc, 0, len(poss)), poss...)
			}
			s.imu.RUnlock()
			if len(locs) == 0 {
				return nil
			}
			var err error
			buf, err = readLocs(ctx, locs, buf, func(l loc, rec []byte) error {
				ev, err := records.Decode(l.pos, rec)
				out = append(out, ev)
				return err
			})
			if err != nil {
				return err
			}
			from += uint64(len(locs))
			if max > 0 && len(out) >= max {
				return nil
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("logstore: read stream %s: %w", stream, err)
	}
	return out, nil
}

// ReadAll returns up to max events of the log strictly after from, in
// order. max <= 0 means no limit. Only Commit of from is used (the store's
// positions have Commit == Prepare).
func (s *Store) ReadAll(ctx context.Context, from eventstore.Position, max int) ([]eventstore.RecordedEvent, error) {
	out, _, err := s.scan(ctx, from.Commit, "", max, 0)
	if err != nil {
		return nil, fmt.Errorf("logstore: read all from %s: %w", from, err)
	}
	return out, nil
}

// scan returns up to max events (max <= 0: no limit) after position after
// whose stream starts with prefix, examining at most limit records (limit
// <= 0: no limit). scanned is the position of the last record examined (or
// after when none was).
func (s *Store) scan(ctx context.Context, after uint64, prefix string, max, limit int) (out []eventstore.RecordedEvent, scanned uint64, err error) {
	scanned = after
	err = s.gate.Do(ctx, func() error {
		pre := []byte(prefix)
		bp := getReadBuf()
		buf := *bp
		defer func() { putReadBuf(bp, buf) }()
		poss := make([]uint64, 0, readBatch)
		examined := 0
		for {
			s.imu.RLock()
			last := s.offs.len()
			poss = poss[:0]
			want := readBatch
			if max > 0 && len(pre) == 0 {
				want = min(want, max-len(out))
			}
			if limit > 0 {
				want = min(want, limit-examined)
			}
			for p := scanned + 1; p <= last && len(poss) < want; p++ {
				poss = append(poss, p)
			}
			locs := s.locate(nil, poss...)
			s.imu.RUnlock()
			if len(locs) == 0 {
				return nil
			}
			done := false
			buf, err = readLocs(ctx, locs, buf, func(l loc, rec []byte) error {
				if done {
					return nil
				}
				examined++
				if len(pre) > 0 {
					stream, err := records.Stream(rec)
					if err != nil {
						return fmt.Errorf("position %d: %w", l.pos, err)
					}
					if !bytes.HasPrefix(stream, pre) {
						scanned = l.pos
						done = limit > 0 && examined >= limit
						return nil
					}
				}
				ev, err := records.Decode(l.pos, rec)
				if err != nil {
					return err
				}
				out = append(out, ev)
				scanned = l.pos
				done = (max > 0 && len(out) >= max) || (limit > 0 && examined >= limit)
				return nil
			})
			if err != nil || done {
				return err
			}
		}
	})
	if err != nil {
		return nil, after, err
	}
	return out, scanned, nil
}
