package domain

import (
	"fmt"
	"path"
	"slices"
	"strings"
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
//
// A cwd more than MaxCallCwdLevels directories below its writable root is
// refused (err): each directory adds the whole list, and a view's cost
// grows faster than its entries (a call from 50 levels down held 15,775
// entries and cost 8 s of the server's time a check: the
// hundred-and-seventy-fifth review).
func (s *TurnExecutionSecuritySnapshot) AlsoProtectedAt(cwd string) (TurnExecutionSecuritySnapshot, bool, error) {
	if cwd == "" || cwd[0] != '/' || s.Sandbox.Filesystem.Unrestricted {
		return *s, false, nil
	}
	cwd = CleanPath(cwd)
	if cwd == s.Sandbox.Cwd {
		return *s, false, nil
	}
	for _, e := range s.Sandbox.Filesystem.Entries {
		if e.Access != AccessWrite || e.IsCarve() || e.Kind == PathDevice || !PathWithin(cwd, e.ResolvedPath) {
			continue
		}
		if n := strings.Count(strings.TrimPrefix(cwd, e.ResolvedPath), "/"); n > MaxCallCwdLevels {
			return *s, false, &FieldError{Field: "cwd", Value: cwd, Message: fmt.Sprintf("lies %d directories below its writable root %s, more than the %d a tool call's cwd may (the protected list is held at each)", n, e.ResolvedPath, MaxCallCwdLevels)}
		}
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
		return *s, false, nil
	}
	t := *s
	t.Sandbox.Filesystem.Entries = append(slices.Clip(es), extra...)
	return t, true, nil
}

// MaxCallCwdLevels bounds how many directories below its writable root a
// tool call's own cwd may lie (AlsoProtectedAt).
const MaxCallCwdLevels = 24
