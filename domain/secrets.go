package domain

import "slices"

// AddSensitivePaths adds each path to the snapshot as a PathSensitive entry
// (Access deny, Provenance system), in every mode: the service's own
// secrets — its data directory and credential files — are denied, read and
// write, to every decision and every sandboxed command of every turn. It is
// applied after resolution and intersection, so a child turn's cap cannot
// drop the entries.
func AddSensitivePaths(s *TurnExecutionSecuritySnapshot, paths []string) {
	es := s.Sandbox.Filesystem.Entries
	for _, p := range paths {
		if p == "" {
			continue
		}
		e := entry(PathSensitive, p, AccessDeny, ProvenanceSystem)
		if !slices.Contains(es, e) {
			es = append(es, e)
		}
	}
	s.Sandbox.Filesystem.Entries = es
}
