package domain

import "slices"

// AlsoProtectedAt returns a copy of s whose filesystem policy also holds
// the protected list's entries at cwd (a tool call's own directory), and
// whether it added any: none where cwd is the snapshot's own cwd, not
// strictly inside a writable root, or the filesystem is unrestricted.
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
	var extra []FilesystemEntry
	for _, e := range protectedEntries(DefaultProtectedPaths, es, cwd) {
		if !slices.ContainsFunc(es, func(o FilesystemEntry) bool { return o.Kind == PathProtected && o.Path == e.Path }) {
			extra = append(extra, e)
		}
	}
	if len(extra) == 0 {
		return *s, false
	}
	t := *s
	t.Sandbox.Filesystem.Entries = append(slices.Clip(es), extra...)
	return t, true
}
