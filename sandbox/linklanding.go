package sandbox

import (
	"os"
	"path"
	"strings"

	"turnstile/domain"
)

// linkLandingRefusal refuses a write of p (as the caller wrote it, cwd
// its base), whose kernel resolution is canon, when p's last element is
// a symbolic link that a runtime resolving the link's target as text
// would land elsewhere. Claude Code's Write and Edit read the link once,
// resolve its target with Node's path.resolve (a ".." taken off with the
// name before it, not applied where the links before it lead) and
// replace the file there by a rename (a link there is replaced, not
// followed): ws/rc -> sub/../../.bashrc was judged as ws/deep/.bashrc
// (sub a link two levels down) and replaced the .bashrc above the
// workspace (the hundred-and-seventy-first review). A link whose target
// names the file the kernel reaches (the usual link to a file) is not
// refused.
func linkLandingRefusal(cwd, p, canon string) error {
	lex := domain.CleanPath(joinRaw(cwd, p))
	target, err := os.Readlink(lex)
	if err != nil {
		return nil // no link: the write lands where the kernel leads
	}
	land := target
	if !strings.HasPrefix(land, "/") {
		land = path.Dir(lex) + "/" + target
	}
	land = domain.CleanPath(land)
	if land != "/" {
		if dir, _, ok, err := canonicalPath(path.Dir(land)); err == nil && ok && joinPath(dir, path.Base(land)) == canon {
			return nil
		}
	}
	return refuse(CodeSymlinkEscape, lex, "%s is a symbolic link to %q, which a runtime that reads its target as text (Claude Code's Write and Edit) replaces at %s, not at %s where the kernel leads: write the file by its own path", lex, target, land, canon)
}
