package sandbox

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"unicode/utf8"

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
	if !utf8.ValidString(target) {
		// Node reads a link's target as UTF-8, each invalid byte U+FFFD,
		// and the name it then writes through is another entry (ws/x ->
		// d\xff/.bashrc, with ws/d\uFFFD -> ..: the
		// hundred-and-seventy-third review).
		return refuse(CodeSymlinkEscape, lex, "%s is a symbolic link to %q, which is not UTF-8: a runtime that reads its target as text reads another name than the kernel follows; write the file by its own path", lex, target)
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

// maxTempNameScan bounds the entries of a directory tempNamesRefusal
// reads; past it the write is refused (the names cannot all be checked).
const maxTempNameScan = 1 << 16

// tempNamesRefusal refuses a write of the file canon when its directory
// holds an entry named as the runtime's temporary copy of it: Claude
// Code's Write and Edit write canon.tmp.PID.MILLISECONDS first, following
// a link there (O_CREAT|O_TRUNC, no O_NOFOLLOW), then rename it over the
// file; links the agent planted under the coming names (its pid is in
// /proc, the clock predictable) carried an allowed write of ws/notes.txt
// to ~/.bashrc (the hundred-and-seventy-third review). An entry made
// after the decision is not seen (README's limits).
func tempNamesRefusal(canon string) error {
	f, err := os.Open(path.Dir(canon))
	if errors.Is(err, fs.ErrNotExist) {
		return nil // no directory yet: nothing is planted in it
	}
	unlisted := func(err error) error {
		// One the server may search but not list (0711, made so by the
		// agent as the person's user) could hide a planted name (the
		// hundred-and-seventy-fifth review).
		return refuse(CodeWriteRequiresWritable, canon, "the directory of %s cannot be listed (%v): the names of the temporary copy a runtime writes beside it cannot be checked", canon, err)
	}
	if err != nil {
		return unlisted(err)
	}
	defer f.Close()
	prefix := path.Base(canon) + ".tmp."
	for n := 0; ; {
		names, err := f.Readdirnames(1024)
		for _, nm := range names {
			if strings.HasPrefix(nm, prefix) {
				return refuse(CodeSymlinkEscape, canon, "%s lies beside %s, a name of the temporary copy a runtime writes before it replaces the file (Claude Code's Write and Edit follow a link there): remove it before writing %s", joinPath(path.Dir(canon), nm), canon, canon)
			}
		}
		if n += len(names); n > maxTempNameScan {
			return refuse(CodeWriteRequiresWritable, canon, "the directory of %s holds more than %d entries: the names of the temporary copy a runtime writes beside it cannot all be checked", canon, maxTempNameScan)
		}
		switch {
		case err == io.EOF:
			return nil
		case err != nil:
			return unlisted(err)
		}
	}
}
