package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// ownFiles are the files this process reads when it starts (its
// configuration: ProtectOwnFiles), absolute; nil for none.
var ownFiles atomic.Pointer[[]string]

// ownFilesGiven are those paths as given, made absolute but not cleaned
// (ownFileLinked).
var ownFilesGiven atomic.Pointer[[]string]

// ProtectOwnFiles names the files this process reads when it starts
// (serve's --profiles, --constraints, --claude-code-config): like its
// binary, each is kept read-only, and cannot be moved or removed, where it
// lies inside a restricted command's writable roots. They decide what every
// turn may do after the next start; a command that rewrote them would give
// itself a wider profile, or drop the operator's constraints, then.
// Empty paths are skipped; each call replaces the list.
func ProtectOwnFiles(paths ...string) {
	var out, given []string
	for _, p := range paths {
		if p == "" {
			continue
		}
		if abs, err := filepath.Abs(p); err == nil {
			out = append(out, abs)
			// As the next start opens it: a ".." after a directory
			// goes to the parent of what that directory is then
			// (linkOnTheWay), which Abs's cleaning hides.
			if !filepath.IsAbs(p) {
				if wd, err := os.Getwd(); err == nil {
					abs = wd + "/" + p
				}
			} else {
				abs = p
			}
			given = append(given, abs)
		}
	}
	ownFiles.Store(&out)
	ownFilesGiven.Store(&given)
	ownPaths.Store(nil)
}

// ownPaths caches ownFileList's answer (reset by ProtectOwnFiles). The
// files it names cannot be moved by a restricted command (withOwnPrograms),
// so the answer stands.
var ownPaths atomic.Pointer[[]string]

// ownFileList returns the real paths of this process's binary, the helper
// file next to it (used or not: it is the one the next start pins) and the
// files named by ProtectOwnFiles.
func ownFileList() []string {
	if l := ownPaths.Load(); l != nil {
		return *l
	}
	var cand, out []string
	if exe, err := os.Executable(); err == nil {
		cand = append(cand, exe)
	}
	if h := siblingHelperPath(); h != "" {
		cand = append(cand, h)
	}
	if files := ownFiles.Load(); files != nil {
		cand = append(cand, *files...)
	}
	for _, p := range cand {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		out = append(out, p)
	}
	ownPaths.Store(&out)
	return out
}

// ownFileRefusal refuses a write decision on one of the files ownFileList
// names: the runtime's own edit tools write outside the sandbox, so the
// decision must keep them as read-only as a command's view does.
// A file with another hard link is compared by identity too: a link to one
// of them is the same file under another name.
func ownFileRefusal(canon string) error {
	if !slices.Contains(ownFileList(), canon) && !sameFileAsOwn(canon) {
		return nil
	}
	return &Refusal{Code: CodeWriteRequiresWritable, Path: canon,
		Message: "the path is the server's own program or configuration, which stays read-only"}
}

// sameFileAsOwn reports whether canon is, under another name, one of the
// files ownFileList names.
func sameFileAsOwn(canon string) bool {
	var st unix.Stat_t
	if unix.Stat(canon, &st) != nil || st.Nlink < 2 {
		return false
	}
	for _, p := range ownFileList() {
		var o unix.Stat_t
		if unix.Stat(p, &o) == nil && o.Dev == st.Dev && o.Ino == st.Ino {
			return true
		}
	}
	return false
}

// withOwnPrograms returns entries plus a protected, read-only entry for each
// program this process starts with root's (or its own) privileges before any
// enforcement — the helper file prog was pinned from, and this process's own
// binary — that lies inside one of the entries' writable roots. The README
// builds both into bin/ of the clone, which is often a turn's workspace; as
// root a restricted command's uid owns the root owner's files there through
// the idmapped mount. Without the entry such a command could rewrite the
// pinned helper in place, and the next spawn would run its code before any
// mask, Landlock rule or capability drop. (The server's binary cannot be
// written while it runs, but could be replaced for its next start.) entries
// is not modified. The files named by ProtectOwnFiles are protected the
// same way.
//
// The helper file next to this process's binary (siblingHelperPath) is
// protected whether this run uses it or not: it is the program the next
// `turnstile sandbox` execs before anything is enforced (its early entry)
// and the next start pins. A refused one (writable by its group, built
// from other code) stays read-only, so the command cannot make it usable;
// a missing one is reserved (held empty while the command runs), so the
// command cannot plant one.
func withOwnPrograms(entries []domain.FilesystemEntry, prog helperProg) []domain.FilesystemEntry {
	var progs []string
	if prog.lean {
		progs = append(progs, prog.file)
	}
	if prog.candidate != "" && prog.candidate != prog.file {
		// Refused, it is still the file the next start pins.
		progs = append(progs, prog.candidate)
	}
	if exe, err := os.Executable(); err == nil {
		progs = append(progs, exe)
	}
	if files := ownFiles.Load(); files != nil {
		progs = append(progs, *files...)
	}
	sibling := siblingHelperPath()
	if sibling != "" {
		progs = append(progs, sibling)
	}
	out := entries
	for _, p := range progs {
		real, err := filepath.EvalSymlinks(p)
		// The helper's name is reserved: held while missing (or while
		// another run holds it), read-only when it is a file.
		reserved := p == sibling
		if err != nil && reserved {
			// Missing (or unresolvable): siblingHelperPath's directory is
			// resolved already; the name is held so nothing appears there.
			if _, lerr := os.Lstat(p); !errors.Is(lerr, fs.ErrNotExist) {
				continue
			}
			real, err = p, nil
		}
		if err != nil || !insideWritable(entries, real) || slices.ContainsFunc(out, func(e domain.FilesystemEntry) bool {
			return e.Kind == domain.PathProtected && e.ResolvedPath == real
		}) {
			continue
		}
		if len(out) == len(entries) {
			out = slices.Clone(entries)
		}
		out = append(out, domain.FilesystemEntry{Kind: domain.PathProtected, Path: real, ResolvedPath: real,
			Access: domain.AccessRead, Provenance: domain.ProvenanceSystem, Reserved: reserved})
	}
	return out
}

// ownFileLinked returns why no command of entries may run, or "": a file
// the server reads when it starts (ProtectOwnFiles), or the lean helper it
// pins then (the one prog was looked for at, and the one next to this
// binary, used or refused), lies inside one of the entries' writable roots
// and has another hard link. withOwnPrograms keeps its path read-only,
// which guards the path and not the file: a link made while the file was
// still a workspace file stays writable, and a command could write the
// server's next configuration through it, or its program into the helper
// and then remove the link, so that the next start pins a helper with one
// link and runs it for its fingerprint (not using a linked helper, as
// helperFileProblem does, is not enough). The server's binary is left
// out: it cannot be written while it runs.
func ownFileLinked(entries []domain.FilesystemEntry, prog helperProg) string {
	var files []string
	if own := ownFiles.Load(); own != nil {
		files = append(files, *own...)
	}
	if h := siblingHelperPath(); h != "" {
		files = append(files, h)
	}
	if prog.candidate != "" {
		files = append(files, prog.candidate)
	}
	if prog.lean {
		files = append(files, prog.file)
	}
	if own := ownFilesGiven.Load(); own != nil {
		for _, p := range *own {
			if l := linkOnTheWay(entries, p); l != "" {
				return fmt.Sprintf("%s, which the server reads when it starts, is named through %s (a symlink, or a directory a \"..\" leaves), which lies in a writable root: a command could point it elsewhere, or put a file of its own in its place (start the server with the file's own path)", p, l)
			}
		}
	}
	if p := startedAs(); p != "" {
		if l := linkOnTheWay(entries, p); l != "" {
			return fmt.Sprintf("%s, the path this server was started by, passes %s (a symlink, or a directory a \"..\" leaves), which lies in a writable root: a command could point it elsewhere, or put a program of its own in its place, which the next start runs (start the server by its binary's own path)", p, l)
		}
	}
	for _, p := range files {
		real, err := filepath.EvalSymlinks(p)
		if err != nil || !insideWritable(entries, real) {
			continue
		}
		var st unix.Stat_t
		if unix.Stat(real, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG && st.Nlink > 1 {
			return fmt.Sprintf("%s, which the server runs or reads when it starts, lies in a writable root and has %d hard links: a command could rewrite it through another (make it a file of its own)", real, st.Nlink)
		}
	}
	return ""
}

// linkOnTheWay returns the first symlink the kernel passes on its way to p
// (p absolute, resolved as an open of it resolves it: each link's target in
// turn, the links that target passes included) that lies in a writable
// directory of entries (in a writable root, not below a read-only
// protected path), or the first directory in one that a ".." leaves, or
// "". withOwnPrograms keeps the file p leads to, and
// the directories above that file, read-only; the server reads p itself at
// its next start, and a command can replace a symlink on its way (remove
// it, and make a file or a directory of its own at its name), one that a
// link outside the roots leads through as well (/usr/local/bin/turnstile
// -> ws/current/turnstile, ws/current -> build).
func linkOnTheWay(entries []domain.FilesystemEntry, p string) string {
	policy := &domain.FilesystemPolicy{Entries: entries}
	rest := splitPath(p)
	cur := "/" // resolved: no symlink in it
	for links := 0; len(rest) > 0; {
		name := rest[0]
		rest = rest[1:]
		switch name {
		case ".":
			continue
		case "..":
			// The parent of what cur is when the path is opened: a
			// directory in a writable directory can be replaced with a
			// symlink, whose ".." is the parent of its target
			// (/usr/local/bin/turnstile -> ws/tools/../build/turnstile).
			if replaceableDir(entries, policy, cur) {
				return cur
			}
			cur = filepath.Dir(cur)
			continue
		}
		next := joinPath(cur, name)
		fi, err := os.Lstat(next)
		if err != nil {
			return ""
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		// A command replaces the symlink through its directory: one that
		// is read-only in the command's view (~/.local/bin under a home
		// granted writable) keeps it.
		if insideWritable(entries, next) && domain.AccessAt(policy, cur) == domain.AccessWrite {
			return next
		}
		target, err := os.Readlink(next)
		if links++; err != nil || links > 40 {
			return ""
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		rest = append(splitPath(target), rest...)
	}
	return ""
}

// replaceableDir reports whether a command of entries can replace the
// directory d (resolved): it is writable, in a writable directory, and
// holds no protected path that exists or is held (which keeps the
// directories between it and its root in place; one that does not exist
// pins nothing: ws/.mvn stays movable while ws/.mvn/jvm.config is missing).
func replaceableDir(entries []domain.FilesystemEntry, policy *domain.FilesystemPolicy, d string) bool {
	if d == "/" || !insideWritable(entries, d) || domain.AccessAt(policy, d) != domain.AccessWrite ||
		domain.AccessAt(policy, filepath.Dir(d)) != domain.AccessWrite {
		return false
	}
	for _, e := range entries {
		var st unix.Stat_t
		if e.Kind == domain.PathProtected && domain.PathWithin(e.ResolvedPath, d) && (e.Reserved || unix.Lstat(e.ResolvedPath, &st) == nil) {
			return false
		}
	}
	return true
}

// startedAs is the path this process was started by: argv[0] made
// absolute against the directory it started in, or found in PATH; "" when
// unknown. os.Executable resolves every symlink, so withOwnPrograms keeps
// the binary and the directories above it, not a symlink on the path the
// person starts the server by (ws/bin -> build): ownFileLinked refuses a
// command whose writable roots hold one. Only the directory is read at
// start (a relative argv[0]); the rest waits for the first command, so
// that the helper, which starts for every command, looks nothing up.
var startedAs = sync.OnceValue(func() string {
	p := startArg0
	switch {
	case p == "" || p == HelperProgram:
		// The lean program (its argv[0] is its own name, not the path
		// the turnstile binary that started it was started by).
		return ""
	case !strings.Contains(p, "/"):
		found, err := exec.LookPath(p)
		if err != nil {
			return ""
		}
		p = found
	}
	if !filepath.IsAbs(p) {
		if startDir == "" {
			return ""
		}
		p = startDir + "/" + p
	}
	// Not cleaned: the next start resolves a ".." after a directory from
	// what that directory is then (linkOnTheWay).
	return p
})

// startArg0 and startDir are argv[0] and, when it is a relative path,
// the working directory at start (startedAs).
var startArg0, startDir = func() (string, string) {
	if len(os.Args) == 0 {
		return "", ""
	}
	p := os.Args[0]
	if !strings.Contains(p, "/") || filepath.IsAbs(p) {
		return p, ""
	}
	// os.Getwd keeps $PWD, the shell's way in, when it leads here: a
	// symlink on it is one the next start passes as well.
	wd, err := os.Getwd()
	if err != nil {
		return "", ""
	}
	return p, wd
}()

// insideWritable reports whether p lies inside a writable root of entries.
func insideWritable(entries []domain.FilesystemEntry, p string) bool {
	for _, e := range entries {
		if e.Access != domain.AccessWrite || e.Kind == domain.PathDevice || e.Kind == domain.PathProtected {
			continue
		}
		root := e.ResolvedPath
		if root == "" {
			root = e.Path
		}
		if domain.PathWithin(p, root) {
			return true
		}
	}
	return false
}
