package logstore

import "math"

// The in-memory index is kept compact: it is the one part of the store
// whose size follows the whole log (a position's offset, a stream's
// positions), so each is held in 4 bytes where it fits rather than 8.
//
// Both types are appended to by the writer alone; readers use them under
// imu, and the checkpointer uses copies taken under imu (view): an element
// below a copy's length is never changed, and what a copy holds besides the
// slices (wide) is replaced, never changed, by a later append.

// offBlock is how many positions share one base offset.
const offBlock = 64

// noDelta marks an offset whose delta to its block's base does not fit in
// 32 bits (a block holding more than 4 GiB of records); it is in wide.
const noDelta = math.MaxUint32

// offIndex maps a position (1, 2, …) to the global offset of its record.
type offIndex struct {
	// bases[b] is the offset of position b*offBlock+1.
	bases []uint64
	// deltas[p-1] is p's offset less its block's base, or noDelta.
	deltas []uint32
	// wide holds the offsets whose delta does not fit, by position;
	// replaced (copied) when one is added.
	wide map[uint64]uint64
}

// len is the number of positions indexed (the last position).
func (x *offIndex) len() uint64 { return uint64(len(x.deltas)) }

// at returns position p's offset (1 <= p <= len).
func (x *offIndex) at(p uint64) uint64 {
	d := x.deltas[p-1]
	if d == noDelta {
		return x.wide[p]
	}
	return x.bases[(p-1)/offBlock] + uint64(d)
}

// add indexes the next position at offset off.
func (x *offIndex) add(off uint64) {
	i := uint64(len(x.deltas))
	if i%offBlock == 0 {
		x.bases = append(x.bases, off)
	}
	d := off - x.bases[i/offBlock]
	if d >= noDelta {
		w := make(map[uint64]uint64, len(x.wide)+1)
		for k, v := range x.wide {
			w[k] = v
		}
		w[i+1] = off
		x.wide = w
		d = noDelta
	}
	x.deltas = append(x.deltas, uint32(d))
}

// grow makes room for n more positions.
func (x *offIndex) grow(n uint64) {
	if n == 0 {
		return
	}
	d := make([]uint32, len(x.deltas), uint64(len(x.deltas))+n)
	copy(d, x.deltas)
	x.deltas = d
	b := make([]uint64, len(x.bases), uint64(len(x.bases))+n/offBlock+1)
	copy(b, x.bases)
	x.bases = b
}

// view is a copy that later appends do not change.
func (x *offIndex) view() offIndex {
	return offIndex{bases: x.bases[:len(x.bases):len(x.bases)], deltas: x.deltas[:len(x.deltas):len(x.deltas)], wide: x.wide}
}

// streamIndex is one stream's positions, by revision.
type streamIndex struct {
	// first is revision 0's position.
	first uint64
	// d[rev] is revision rev's position less first, while every one fits
	// in 32 bits; then the positions are in wide, and d is nil.
	d    []uint32
	wide []uint64
}

// len is the stream's number of events.
func (si *streamIndex) len() uint64 {
	if si.wide != nil {
		return uint64(len(si.wide))
	}
	return uint64(len(si.d))
}

// at returns revision rev's position (rev < len).
func (si *streamIndex) at(rev uint64) uint64 {
	if si.wide != nil {
		return si.wide[rev]
	}
	return si.first + uint64(si.d[rev])
}

// add appends the position of the next revision.
func (si *streamIndex) add(pos uint64) {
	if si.wide != nil {
		si.wide = append(si.wide, pos)
		return
	}
	if len(si.d) == 0 {
		si.first = pos
	}
	if d := pos - si.first; d < math.MaxUint32 {
		si.d = append(si.d, uint32(d))
		return
	}
	w := make([]uint64, len(si.d), len(si.d)+1)
	for i, d := range si.d {
		w[i] = si.first + uint64(d)
	}
	si.wide, si.d = append(w, pos), nil
}

// view is a copy that later appends do not change.
func (si *streamIndex) view() streamIndex {
	return streamIndex{first: si.first, d: si.d[:len(si.d):len(si.d)], wide: si.wide[:len(si.wide):len(si.wide)]}
}
