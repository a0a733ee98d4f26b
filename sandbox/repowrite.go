package sandbox

import (
	"path"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// repositoryRoots returns the writable grants among grants at which fp
// protects ".git" (a protected entry <root>/.git): the rule against writing
// a repository goes with that item of the protected list, so a profile that
// replaces the list without it, and an unrestricted filesystem (no
// protected entries), have neither.
func repositoryRoots(fp *domain.FilesystemPolicy, grants []fsRule) []fsRule {
	protected := map[string]bool{}
	for _, e := range fp.Entries {
		p := e.ResolvedPath
		if p == "" {
			p = domain.CleanPath(e.Path)
		}
		if e.Kind == domain.PathProtected && path.Base(p) == ".git" {
			protected[path.Dir(p)] = true
		}
	}
	var out []fsRule
	for _, g := range grants {
		if g.Access == domain.AccessWrite && protected[g.From] {
			out = append(out, g)
		}
	}
	return out
}

// repositoryRefusal refuses a file tool's write that would write a git
// repository's files inside a writable root (domain.RepositoryWrite),
// judging the canonical path (where the file lands) and the lexical one (a
// ".git" that is a symlink to a directory is still where git looks). It is
// refused like a protected path: no one is asked, since the decision path
// has no way to make such a write safe; a person who means it makes the
// repository with git.
func (v *fsView) repositoryRefusal(lexical, canon string) *Refusal {
	for _, g := range v.repoRoots {
		dir, ok := "", false
		if domain.PathWithin(canon, g.Path) {
			dir, ok = domain.RepositoryWrite(g.Path, canon, entryExists)
		}
		if !ok && lexical != canon && domain.PathWithin(lexical, g.From) {
			dir, ok = domain.RepositoryWrite(g.From, lexical, entryExists)
		}
		if ok && domain.OtherVCSDir(path.Base(dir)) {
			return &Refusal{Code: CodeWriteRequiresWritable, Path: canon,
				Message: "the path is a repository's own file (" + dir + " is, or would then be, a Mercurial, Jujutsu or Sapling repository's dir): " +
					"the host's version control trusts its config, hooks and extensions, so file tools may not write a repository inside a writable root"}
		}
		if ok {
			return &Refusal{Code: CodeWriteRequiresWritable, Path: canon,
				Message: "the path is a git repository's own file (" + dir + " is, or would then be, a git dir): " +
					"the host's git trusts its config and hooks, so file tools may not write a repository inside a writable root"}
		}
	}
	return nil
}

// entryExists reports whether anything (a symlink included) is at p.
func entryExists(p string) bool {
	var st unix.Stat_t
	return unix.Lstat(p, &st) == nil
}
