package api

import (
	"path/filepath"
	"slices"

	"turnstile/domain"
)

// ccResolved returns the operator's Claude Code projects with, beside each
// one whose root leads through a symlink, the same project at the real
// root: a project is its directory wherever its path leads (the
// hundred-and-twenty-third review: billing's project configured as
// /srv/billing, a link into app's, was not found inside app's root). nil
// when there are none.
func (s *Server) ccResolved() *domain.ClaudeCodeConfig {
	cc := s.cfg.ClaudeCode
	if cc == nil || len(cc.Projects) == 0 {
		return nil
	}
	out := *cc
	out.Projects = slices.Clone(cc.Projects)
	for _, p := range cc.Projects {
		if real, err := filepath.EvalSymlinks(p.Root); err == nil && real != p.Root {
			q := p
			q.Root = real
			out.Projects = append(out.Projects, q)
		}
	}
	return &out
}

// foreignProjects returns the roots (as configured and where they lead) of
// the projects of another workspace than ws, but those that hold root (a
// catch-all "/", a project app's lies in): a turn of ws rooted at root
// denies them (turn.Inputs.ForeignProjects), so that its credential does
// not act on another workspace's files under ws's label, where that
// workspace's approvers and auditors see nothing. A full_access turn
// reached every project beside its own (the hundred-and-twenty-third
// review); one nested in its root was reached in every mode (the
// hundred-and-nineteenth).
func (s *Server) foreignProjects(ws, root string) []string {
	cc := s.ccResolved()
	if cc == nil || root == "" {
		return nil
	}
	roots := []string{domain.CleanPath(root)}
	if real, err := filepath.EvalSymlinks(root); err == nil && real != roots[0] {
		roots = append(roots, real)
	}
	var out []string
	for _, p := range cc.Projects {
		if p.WorkspaceID == ws || slices.ContainsFunc(roots, func(r string) bool { return domain.PathWithin(r, p.Root) }) {
			continue
		}
		if !slices.Contains(out, p.Root) {
			out = append(out, p.Root)
		}
	}
	return out
}

// turnRoot is the directory a REST turn is rooted at: its workspace root,
// else its cwd (absolute by then: checkProjectRoots).
func turnRoot(req *StartTurnRequest) string {
	if req.WorkspaceRoot != "" {
		return req.WorkspaceRoot
	}
	return req.Cwd
}
