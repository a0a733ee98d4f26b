package sandbox

import (
	"reflect"
	"testing"

	"turnstile/domain"
)

// TestSeenFSValuesAreFlat: seenFS takes the same bytes of a snapshot's
// entries and rules for the same values, which holds only while their
// fields are strings, booleans and numbers (a slice or pointer field
// could change what it points at without changing a byte). A new field
// of another kind must change seenFS first.
func TestSeenFSValuesAreFlat(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[domain.FilesystemEntry](), reflect.TypeFor[domain.PathRule]()} {
		for f := range typ.Fields() {
			switch f.Type.Kind() {
			case reflect.String, reflect.Bool, reflect.Int, reflect.Int32, reflect.Int64, reflect.Uint8:
			default:
				t.Errorf("%s.%s is a %s: seenFS's byte comparison does not cover it", typ.Name(), f.Name, f.Type.Kind())
			}
		}
	}
}

// TestSeenFSArraysReused: a snapshot whose entry array another snapshot
// reuses with one entry's path changed (same length, same array) is
// judged by what it holds now; the first snapshot's answer stands for it
// as before (the control).
func TestSeenFSArraysReused(t *testing.T) {
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"a/f": "x", "b/f": "x"})
	k := domain.KernelFeatures{LandlockABI: 7, Seccomp: true}
	s := snapshotFor(t, domain.ModeSupervised, ws, k)
	s.Sandbox.Filesystem.Entries = append(s.Sandbox.Filesystem.Entries, domain.FilesystemEntry{Kind: domain.PathExplicit,
		Path: ws + "/a", Access: domain.AccessDeny, Provenance: domain.ProvenanceComposer, ResolvedPath: ws + "/a"})
	for range 2 {
		decideFile(t, s, "a/f", rd, CodeOutsideAllowedRoots, "")
		decideFile(t, s, "b/f", rd, "", ws+"/b/f")
	}
	// Another snapshot on the same array: the deny now names b.
	other := *s
	last := &other.Sandbox.Filesystem.Entries[len(other.Sandbox.Filesystem.Entries)-1]
	last.Path, last.ResolvedPath = ws+"/b", ws+"/b"
	decideFile(t, &other, "b/f", rd, CodeOutsideAllowedRoots, "")
	decideFile(t, &other, "a/f", rd, "", ws+"/a/f")
}
