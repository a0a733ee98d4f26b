package sandbox

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"testing"
)

// attack135V4Index is a version-4 SHA-1 index of n entries, each
// stripping strip(i, prev) bytes of the previous name and adding suffix(i).
func attack135V4Index(n int, strip func(prevLen int) int, suffix func(i int) string) []byte {
	b := []byte("DIRC\x00\x00\x00\x04")
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	prevLen := 0
	for i := 0; i < n; i++ {
		e := make([]byte, 62)
		binary.BigEndian.PutUint32(e[24:], 0o100644)
		s, suf := strip(prevLen), suffix(i)
		l := prevLen - s + len(suf)
		binary.BigEndian.PutUint16(e[60:], uint16(min(l, 0xfff)))
		e = binary.AppendUvarint(e, uint64(s))
		e = append(append(e, suf...), 0)
		b = append(b, e...)
		prevLen = l
	}
	return append(b, make([]byte, 20)...)
}

// TestAttack135_V4IndexQuadraticParse (hundred-and-thirty-fifth review):
// the index watch parses a version-4 index by copying each entry's whole
// name (the previous name less its stripped bytes, then the new bytes)
// into a new slice, and hands it to the deny check as a string. An entry
// that strips nothing and adds one byte makes each name one byte longer
// than the last: the work is quadratic in the number of entries, which the
// 64 MiB bound on the index lets reach about a million (65 bytes an
// entry), some 5*10^11 bytes copied, each name of up to a megabyte also
// judged as a path: a command's index holds its check (and the command's
// answer) for as long as it likes. Measured here without a clock: the
// bytes the parse allocates for an index of 40,000 such entries (2.6 MB),
// against 64 times the index's size.
//
// Control ("control"): an index of as many entries of the same size whose
// names do not grow (each strips its predecessor whole) stays within the
// bound.
func TestAttack135_V4IndexQuadraticParse(t *testing.T) {
	const n = 40000
	for _, c := range []struct {
		name string
		idx  []byte
	}{
		{"control", attack135V4Index(n, func(p int) int { return p }, func(i int) string { return fmt.Sprintf("f%05d", i%100000)[:1] })},
		{"growing-names", attack135V4Index(n, func(int) int { return 0 }, func(int) string { return "a" })},
	} {
		t.Run(c.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, _, err := indexEntries(c.idx, 20, func(string) bool { return false })
			runtime.ReadMemStats(&after)
			if err != nil {
				// (Fixed: the parse stops past maxExpandedNames, or at a
				// repeated path, and the index is judged unreadable: set
				// aside. What matters here is what it cost.)
				t.Logf("the index is refused: %v", err)
			}
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("index %d bytes, parse allocated %d bytes", len(c.idx), alloc)
			if limit := uint64(64 * len(c.idx)); alloc > limit {
				t.Errorf("parsing a %d-byte version-4 index of %d entries allocated %d bytes (more than 64 times its size): each name is copied whole from the last, and names that grow by a byte an entry make the watch's work quadratic (a 64 MiB index: about 5*10^11 bytes)", len(c.idx), n, alloc)
			}
		})
	}
}
