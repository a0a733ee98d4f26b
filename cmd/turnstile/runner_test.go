package main

import (
	"slices"
	"testing"

	"turnstile/domain"
)

// TestWithSecretsCopies: the secrets a spawn adds (runner.otherData) go on
// a copy of the turn's snapshot, never into the entries other commands of
// the turn read, even where their slice has room to grow in place.
func TestWithSecretsCopies(t *testing.T) {
	var s domain.TurnExecutionSecuritySnapshot
	s.Sandbox.Filesystem.Entries = make([]domain.FilesystemEntry, 0, 8)
	domain.AddSensitivePaths(&s, []string{"/srv/own"})
	before := slices.Clone(s.Sandbox.Filesystem.Entries)
	c := withSecrets(&s, []string{"/home/u/.local/state/turnstile"})
	// The slot past the turn's entries, in their backing array, too.
	if es := s.Sandbox.Filesystem.Entries; !slices.Equal(es, before) || es[:2][1] != (domain.FilesystemEntry{}) {
		t.Fatalf("the turn's snapshot changed: %+v", es[:2])
	}
	var paths []string
	for _, e := range c.Sandbox.Filesystem.Entries {
		paths = append(paths, e.Path)
	}
	if !slices.Equal(paths, []string{"/srv/own", "/home/u/.local/state/turnstile"}) {
		t.Fatalf("the spawn's snapshot names %v", paths)
	}
}
