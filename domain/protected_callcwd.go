package domain

import (
	"path"
	"slices"
)

// AlsoProtectedAt returns a copy of s whose filesystem policy also holds
// the protected list's entries at cwd (a tool call's own directory) and at
// each directory above it inside its writable root, and whether it added
// any: none where those are the snapshot's own cwd, not strictly inside a
// writable root, or the filesystem is unrestricted.
//
// A Claude Code session's turn takes its cwd from the event that starts
// it, which the agent, holding the hook's credential, can send itself with
// another directory of the project: the protected items at the directory
// Claude Code runs in (its .mcp.json, .vscode, .envrc) then lay outside
// the turn's list, and its Write of one was allowed without anyone asked
// (the ninety-eighth review). Each call's own cwd is Claude Code's.
func (s *TurnExecutionSecuritySnapshot) AlsoProtectedAt(cwd string) (TurnExecutionSecuritySnapshot, bool) {
	if cwd == "" || cwd[0] != '/' || s.Sandbox.Filesystem.Unrestricted {
		return *s, false
	}
	cwd = CleanPath(cwd)
	if cwd == s.Sandbox.Cwd {
		return *s, false
	}
	es := s.Sandbox.Filesystem.Entries
	held := map[string]bool{} // the protected paths listed, the snapshot's and those added
	for _, e := range es {
		if e.Kind == PathProtected {
			held[e.Path] = true
		}
	}
	var extra []FilesystemEntry
	// The call's cwd is Claude Code's Bash directory, which the agent
	// moves with cd (within the directory Claude Code started in): the
	// list is held at each directory from it up to its writable root, so
	// at the one Claude Code started in too (the hundred-and-second
	// review). protectedEntries adds nothing at a root or outside one.
	for d := cwd; d != "/"; d = path.Dir(d) {
		if d == s.Sandbox.Cwd {
			continue
		}
		for _, e := range protectedEntries(DefaultProtectedPaths, es, d) {
			if !held[e.Path] {
				held[e.Path] = true
				extra = append(extra, e)
			}
		}
	}
	if len(extra) == 0 {
		return *s, false
	}
	t := *s
	t.Sandbox.Filesystem.Entries = append(slices.Clip(es), extra...)
	return t, true
}
