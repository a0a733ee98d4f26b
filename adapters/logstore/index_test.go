package logstore

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// TestCompactIndexMatchesPlainSlices: the compact offset and stream indexes
// answer as plain slices of every value appended would, with gaps that do
// not fit in 32 bits (a block of records over 4 GiB, a stream whose events
// lie more than 2^32 positions apart) among small ones; and a view taken
// before more appends keeps answering what it held.
func TestCompactIndexMatchesPlainSlices(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var offs offIndex
		var si streamIndex
		var wantOffs, wantPos []uint64
		type held struct {
			offs  offIndex
			si    streamIndex
			n, sn int
		}
		var views []held
		off, pos := rapid.Uint64Range(0, 1<<40).Draw(t, "off"), rapid.Uint64Range(1, 1<<40).Draw(t, "pos")
		n := rapid.IntRange(1, 3*offBlock).Draw(t, "n")
		for i := range n {
			gap := rapid.SampledFrom([]uint64{0, 1, 37, 1 << 20, math.MaxUint32 - 1, math.MaxUint32, 1 << 33}).Draw(t, "gap")
			off += gap
			offs.add(off)
			wantOffs = append(wantOffs, off)
			pos += 1 + rapid.SampledFrom([]uint64{0, 63, math.MaxUint32 - 2, math.MaxUint32, 1 << 34}).Draw(t, "posgap")
			si.add(pos)
			wantPos = append(wantPos, pos)
			if rapid.IntRange(0, 9).Draw(t, "view") == 0 {
				views = append(views, held{offs.view(), si.view(), i + 1, i + 1})
			}
		}
		check := func(name string, x *offIndex, s *streamIndex, n int) {
			if x.len() != uint64(n) || s.len() != uint64(n) {
				t.Fatalf("%s: len %d and %d, want %d", name, x.len(), s.len(), n)
			}
			for p := 1; p <= n; p++ {
				if got := x.at(uint64(p)); got != wantOffs[p-1] {
					t.Fatalf("%s: offset of position %d is %d, want %d", name, p, got, wantOffs[p-1])
				}
				if got := s.at(uint64(p - 1)); got != wantPos[p-1] {
					t.Fatalf("%s: revision %d at %d, want %d", name, p-1, got, wantPos[p-1])
				}
			}
		}
		check("index", &offs, &si, n)
		for _, v := range views {
			check("view", &v.offs, &v.si, v.n)
		}
	})
}
