package domain

import (
	"fmt"
	pathpkg "path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// patch classifies apply_patch: every file named by a patch header is a
// write; the patch itself is hashed, never stored.
func (c *classifier) patch(entries []ScopeEntry) ([]ScopeEntry, error) {
	c.a.Kind = ActionFileWrite
	text := c.str("patch", "input")
	if text == "" {
		return nil, &FieldError{Field: "arguments.patch", Message: "required"}
	}
	var paths []string
	names, err := codexPatchNames(text)
	if err != nil {
		return nil, err
	}
	for _, raw := range names {
		p, err := c.pathBothWays(raw, AccessWrite)
		if err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	if len(paths) == 0 || !codexPatch(text) {
		// A unified diff (diff -u, git diff): its headers name the files.
		// A text that is not a Codex patch is read as a diff too, Codex
		// headers or not: to GNU patch "*** Update File: x" is a context
		// diff's first header.
		if diffPaths, ok := unifiedDiffPaths(text); ok {
			if len(diffPaths) > MaxDiffPaths {
				return nil, &FieldError{Field: "arguments.patch", Message: fmt.Sprintf("names more than %d files (each name at each strip level); split it", MaxDiffPaths)}
			}
			for _, raw := range diffPaths {
				if len(raw) > MaxDiffName {
					return nil, &FieldError{Field: "arguments.patch", Message: fmt.Sprintf("names a file of %d bytes; the limit is %d (PATH_MAX)", len(raw), MaxDiffName)}
				}
				p, err := c.path(raw, AccessWrite)
				if err != nil {
					return nil, err
				}
				paths = append(paths, p)
			}
		}
	}
	if len(paths) == 0 {
		return nil, &FieldError{Field: "arguments.patch", Message: "names no file (expected '*** Add/Update/Delete File: path' headers, or a unified diff's '--- a/path' / '+++ b/path' headers)"}
	}
	paths = sortedUnique(paths)
	for _, p := range paths {
		c.a.Files = append(c.a.Files, FileOp{Path: p, Access: AccessWrite})
		c.detail("File", p, true)
	}
	c.a.Summary = fmt.Sprintf("Edit %d file(s): %s", len(paths), strings.Join(paths, ", "))
	entries = append(entries, ScopeEntry{"operation", string(AccessWrite)})
	if !fileOnlyPatch(text) || len(c.args) != 1 {
		// Bound by the hash of every argument, unless the call is the
		// file alone (a file tool's judged patch, which carries nothing
		// else: another argument beside it is bound and changes the
		// scope, the hundred-and-eightieth review).
		entries = append(entries, c.payload())
	}
	if len(paths) == 1 {
		return append(entries, ScopeEntry{"path", paths[0]}), nil
	}
	return append(entries, ScopeEntry{"paths", jsonList(paths)}), nil
}

// codexPatchNames returns the names of the files a patch in Codex's format
// writes, as written. Codex's parser trims a hunk header line (Rust's
// trim: Unicode white space, as TrimSpace) before it matches a marker
// (after an Add or Delete hunk, an indented header starts a hunk of its
// own), and keeps what follows the marker's one space, leading blanks
// included; a move line it reads untrimmed. A name with a leading or
// trailing blank, or none, is then another file than the trimmed name
// ("*** Move to:    " moves the file to one named by three spaces, in the
// patch's directory, wherever a cd put it): refused, since no honest patch
// names one (the fifty-eighth review).
func codexPatchNames(text string) ([]string, error) {
	var names []string
	bad := func(line string) error {
		return &FieldError{Field: "arguments.patch", Value: line,
			Message: "a patch header names a file with leading or trailing blanks, or none; Codex would write a file named by those blanks"}
	}
	for line := range strings.SplitSeq(text, "\n") {
		t := strings.TrimSpace(line)
		for _, h := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if t == strings.TrimSpace(h) {
				return nil, bad(line)
			}
			if rest, ok := strings.CutPrefix(t, h); ok {
				if rest == "" || rest != strings.TrimSpace(rest) {
					return nil, bad(line)
				}
				names = append(names, rest)
			}
		}
		if rest, ok := strings.CutPrefix(strings.TrimSuffix(line, "\r"), "*** Move to: "); ok && rest != strings.TrimSpace(rest) {
			return nil, bad(line)
		}
	}
	return names, nil
}

// execPatch returns the patch of a command Codex's exec_command does not
// run but applies itself, as its apply_patch tool applies one
// (maybe_parse_apply_patch): argv ["apply_patch" or "applypatch", patch],
// or a shell (bash, zsh, sh, pwsh, powershell, cmd) whose script is that
// program reading a here-document, alone or after "cd dir &&". dirs are the
// directories, relative to the command's, its names may be relative to:
// "" and, after a cd, that directory (as written, and with the blanks
// Codex's grammar skips taken out). Codex matches the script with
// tree-sitter's bash grammar, which skips white space, a line continuation
// and a backslash before a blank between tokens (shellBlank); this reads
// it more loosely (any script that names the program before a "<<" on
// its line, and a cd's directory before its first "&&"), so that what
// Codex applies is always judged. A cd argument in double quotes
// with an expansion is refused: Codex takes a literal part of it for the
// directory.
func execPatch(argv []string) (patch string, dirs []string, ok bool, err error) {
	isProg := func(s string) bool {
		return s == "apply_patch" || s == "applypatch" || pathpkg.Base(s) == "apply_patch" || pathpkg.Base(s) == "applypatch"
	}
	if len(argv) == 2 && isProg(argv[0]) {
		return argv[1], []string{""}, true, nil
	}
	if len(argv) != 3 && len(argv) != 4 {
		return "", nil, false, nil
	}
	// Codex takes the script of [shell, flag, script] for bash, zsh and sh
	// (-c, -lc), pwsh and powershell (-Command, after -NoProfile or not)
	// and cmd (/c), and reads each as bash: the flags are not looked at.
	switch sh := strings.ToLower(strings.TrimSuffix(pathpkg.Base(argv[0]), pathpkg.Ext(argv[0]))); sh {
	case "bash", "zsh", "sh", "pwsh", "powershell", "cmd":
	default:
		return "", nil, false, nil
	}
	script := argv[len(argv)-1]
	// Any place the program's name stands on a line with a "<<", before
	// the first such "<<" (the here-document's body follows it), may be
	// the program Codex's grammar finds: the first may lie in the cd's
	// argument ("cd apply_patch && apply_patch <<EOF"), so the directory
	// is read before the first and before the last.
	type found struct{ at, redirect int }
	var progs []found
	var heredoc []int32
	// The name as a word: Codex's grammar takes a command named so, never
	// one whose name holds it (an honest "cat > fixtures/apply_patch_x.txt
	// <<EOF" is no patch: the sixty-eighth review). Quotes count as a
	// word's edge, so that the reading stays the looser.
	wordEdge := func(i int) bool {
		// (A byte order mark at the start, which tree-sitter's lexer
		// skips, is the start: the seventy-first review.)
		return i < 0 || (i == 2 && strings.HasPrefix(script, "\uFEFF")) || i >= len(script) ||
			strings.IndexByte(" \t\r\n\v\f;&|()<>'\"\\", script[i]) >= 0
	}
	lastRedirect := strings.LastIndex(script, "<<") // looked up once: a script naming the program many times costs one pass
	// spans is spansLines from i, read once per line (from the line's
	// first occurrence: what follows a later one is part of it).
	spanEnd, spanned := -1, false
	spans := func(i int) bool {
		if i > spanEnd {
			end := strings.IndexByte(script[i:], '\n')
			if end < 0 {
				end = len(script) - i
			}
			spanEnd, spanned = i+end, spansLines(script[i:])
		}
		return spanned
	}
	for _, prog := range []string{"apply_patch", "applypatch"} {
		spanEnd = -1 // each name is looked for from the start again
		for i := 0; ; {
			j := strings.Index(script[i:], prog)
			if j < 0 {
				break
			}
			j += i
			i = j + len(prog)
			if !wordEdge(j-1) || !wordEdge(j+len(prog)) {
				continue
			}
			if heredoc == nil {
				heredoc = heredocsOnLines(script)
			}
			if k := int(heredoc[j+len(prog)]); k >= 0 {
				progs = append(progs, found{j, k})
			} else if i < lastRedirect && spans(i) {
				// The program's arguments may go on past its line (a
				// quoted line break, a substitution, a continuation), and
				// the here-document after them is still the program's,
				// which Codex applies (the seventy-first review).
				return "", nil, false, &FieldError{Field: "arguments.cmd", Message: "names apply_patch with an argument that goes on past its line before a \"<<\": write apply_patch <<'EOF' alone, or after one cd to a plain directory"}
			}
		}
	}
	if len(progs) == 0 {
		return "", nil, false, nil
	}
	redirect := slices.MinFunc(progs, func(a, b found) int { return a.redirect - b.redirect }).redirect
	progs = slices.DeleteFunc(progs, func(p found) bool { return p.at > redirect })
	line := script[strings.LastIndexByte(script[:redirect], '\n')+1:]
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	cdWord := ""
	if rest, ok := strings.CutPrefix(strings.TrimSpace(script), "cd"); ok {
		cdWord = cdArgument(rest)
	}
	if strings.Count(line, "<<") > 1 || strings.ContainsAny(cdWord, "\n<") {
		// A second "<<" on the here-document's line, or a cd argument
		// holding a "<" or a line's end: the "<<" taken may lie inside
		// the cd's argument
		// (cd 'apply_patch <</../../.ssh' && apply_patch <<'EOF'), where
		// the reading below took the wrong one and judged the files in
		// the command's directory while Codex writes them in the cd's
		// (the fifty-ninth review). No patch Codex is sent looks so.
		return "", nil, false, &FieldError{Field: "arguments.cmd", Message: "has more than one \"<<\" on the line of the patch Codex applies itself, or a cd argument that holds a \"<\" or a line's end: write one cd to a plain directory and one apply_patch <<'EOF'"}
	}
	first := slices.MinFunc(progs, func(a, b found) int { return a.at - b.at }).at
	last := slices.MaxFunc(progs, func(a, b found) int { return a.at - b.at }).at
	if !cdHead(script[:last]) || strings.IndexFunc(script[:last], func(r rune) bool { return r > 0x7f && unicode.IsSpace(r) }) >= 0 {
		// Codex's grammar lets assignments and redirections stand before
		// the cd's name (FOO=1 cd DIR &&, cd=1 cd DIR &&, >x cd DIR &&)
		// and skips a byte order mark: it then writes in DIR, where the
		// reading above found no cd (the sixty-eighth review). What stands
		// before the program must be nothing or one plain cd; and no
		// white space beyond ASCII, which the grammar keeps in a word and
		// this reading skipped (the seventy-first review).
		return "", nil, false, &FieldError{Field: "arguments.cmd", Message: "has something other than one \"cd DIR &&\" before the apply_patch Codex applies itself: write apply_patch <<'EOF' alone, or after one cd to a plain directory"}
	}
	_, body, ok := strings.Cut(script[redirect:], "\n")
	if !ok {
		return "", nil, false, nil
	}
	dirs = []string{""}
	cds := append(cdDirs(script[:first]), cdDirs(script[:last])...)
	for _, dir := range cds {
		if strings.HasPrefix(dir, "$") {
			// $"DIR", $'DIR', $X: the grammar reads a string or an
			// expansion, which this reading cannot follow (the
			// seventy-first review).
			return "", nil, false, &FieldError{Field: "arguments.cmd", Value: dir, Message: "is a cd argument starting with $ before a patch Codex applies itself: write the directory"}
		}
		if len(dir) >= 2 && (dir[0] == '\'' || dir[0] == '"') && dir[len(dir)-1] == dir[0] {
			if dir[0] == '"' && strings.ContainsAny(dir, "$`") {
				return "", nil, false, &FieldError{Field: "arguments.cmd", Value: dir, Message: "is a cd argument with an expansion before a patch Codex applies itself, which takes a literal part of it for the directory: write the directory"}
			}
			dir = dir[1 : len(dir)-1]
		}
		if dir != "" && !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}
	return body, dirs, true, nil
}

// spansLines reports whether the rest of a line (s, up to its end) holds
// what may carry a command's words past the line's end: a quote, a
// substitution or a backslash before the line's end.
func spansLines(s string) bool {
	line, _, _ := strings.Cut(s, "\n")
	line = strings.TrimSuffix(line, "\r")
	return strings.ContainsAny(line, "'\"`") || strings.Contains(line, "$(") || strings.HasSuffix(line, "\\")
}

// cdHead reports whether head, the script before the program Codex would
// apply, is what Codex's two forms allow there: no "&&" at all (the
// program alone, after assignments or redirections of its own), or one
// "cd WORD &&" at the start, with the blanks Codex's grammar skips around
// its words (what stands between the "&&" and the program is the
// program's own).
func cdHead(head string) bool {
	h := shellBlank(head)
	rest, ok := strings.CutPrefix(h, "cd")
	if !ok {
		return !strings.Contains(head, "&&")
	}
	arg := shellBlank(rest)
	if len(arg) == len(rest) {
		return !strings.Contains(head, "&&") // "cd" runs into what follows ("cd=1")
	}
	w := cdArgument(arg)
	if w == "" || !strings.HasPrefix(arg, w) {
		return false
	}
	return strings.HasPrefix(shellBlank(arg[len(w):]), "&&")
}

// cdDirs returns the directories a "cd dir && " at the start of head may
// name, as written and with the blanks Codex's grammar skips taken out.
// Codex's form anchors the cd (one argument) but not the command after the
// "&&", which may have assignments, arguments and redirections: the
// directory is what comes before the first "&&", before the last, and the
// cd's argument read as the grammar reads a word (a "&&" inside quotes,
// 'q&&r', is part of it).
func cdDirs(head string) []string {
	var cds []string
	for _, h := range []string{head, unblank(head)} {
		rest, ok := strings.CutPrefix(strings.TrimSpace(h), "cd")
		if !ok {
			continue
		}
		if i := strings.Index(rest, "&&"); i >= 0 {
			// The whole-text candidates lose their blanks; the word keeps
			// a trailing escaped one ("cd x\  && …": Codex writes in
			// "x\ ", the sixty-first review).
			cds = append(cds, strings.TrimSpace(rest[:i]), strings.TrimSpace(rest[:strings.LastIndex(rest, "&&")]), cdArgument(rest))
		}
	}
	return cds
}

// cdArgument returns the shell word at the start of s, after the blanks
// the grammar skips: a single- or double-quoted string whole, its quotes
// kept, or a bare word up to a blank or an operator character, a
// backslash and the character after it kept in it.
func cdArgument(s string) string {
	s = shellBlank(s)
	if s == "" {
		return ""
	}
	switch s[0] {
	case '\'':
		if j := strings.IndexByte(s[1:], '\''); j >= 0 {
			return s[:j+2]
		}
	case '"':
		for j := 1; j < len(s); j++ {
			switch s[j] {
			case '\\':
				j++
			case '"':
				return s[:j+1]
			}
		}
	}
	for j := 0; j < len(s); j++ {
		switch c := s[j]; {
		case c == '\\':
			j++
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || strings.IndexByte(";&|<>()", c) >= 0:
			return s[:j]
		}
	}
	return s
}

// heredocsOnLines returns, for each index i of script (and its length),
// the index of the first "<<" from i on on the same line (a line
// continuation does not end it), or -1: Codex's grammar lets a redirection
// or, after a cd, words come between the program and its here-document.
// One pass from the end, so that a script naming the program at every
// word is not scanned to its line's end from each.
func heredocsOnLines(script string) []int32 {
	next := make([]int32, len(script)+1)
	next[len(script)] = -1
	for i := len(script) - 1; i >= 0; i-- {
		switch {
		case strings.HasPrefix(script[i:], "<<"):
			next[i] = int32(i)
		case strings.HasPrefix(script[i:], "\\\n"):
			next[i] = next[i+2]
		case strings.HasPrefix(script[i:], "\\\r\n"):
			next[i] = next[i+3]
		case script[i] == '\n':
			next[i] = -1
		default:
			next[i] = next[i+1]
		}
	}
	return next
}

// shellBlank returns s after the blanks tree-sitter's bash grammar skips
// between tokens at its start: white space, a line continuation (backslash
// newline) and a backslash before a space, tab, vertical tab or form feed.
func shellBlank(s string) string {
	for {
		switch {
		case strings.HasPrefix(s, "\\\n"):
			s = s[2:]
		case strings.HasPrefix(s, "\\\r\n"):
			s = s[3:]
		case len(s) >= 2 && s[0] == '\\' && strings.IndexByte(" \t\v\f", s[1]) >= 0:
			s = s[2:]
		default:
			r, n := utf8.DecodeRuneInString(s)
			if n == 0 || !unicode.IsSpace(r) {
				return s
			}
			s = s[n:]
		}
	}
}

// unblank replaces each run of what shellBlank skips in s by a space.
func unblank(s string) string {
	var b strings.Builder
	for s != "" {
		if rest := shellBlank(s); len(rest) < len(s) {
			b.WriteByte(' ')
			s = rest
			continue
		}
		_, n := utf8.DecodeRuneInString(s)
		b.WriteString(s[:n])
		s = s[n:]
	}
	return b.String()
}

// codexPatch reports whether text is a patch in Codex's format, which
// Codex's parser alone accepts: its first line, trimmed, is "*** Begin
// Patch", or (Codex's lenient form) a heredoc start whose next line is.
func codexPatch(text string) bool {
	first, rest, _ := strings.Cut(strings.TrimSpace(text), "\n")
	if strings.TrimSpace(first) == "*** Begin Patch" {
		return true
	}
	if first = strings.TrimSpace(first); first == "<<EOF" || first == "<<'EOF'" || first == `<<"EOF"` {
		second, _, _ := strings.Cut(rest, "\n")
		return strings.TrimSpace(second) == "*** Begin Patch"
	}
	return false
}

// fileOnlyPatch reports whether text is the patch a Claude Code file tool
// is judged as (ccWrite: one "*** Update File: " line, no content): its
// scope is the file, and it carries no payload entry, so that the request
// says what a grant covers (any content written to that file), not "exact
// arguments" (the hundred-and-seventy-eighth review).
func fileOnlyPatch(text string) bool {
	line, rest, ok := strings.Cut(text, "\n")
	return ok && rest == "" && strings.HasPrefix(line, "*** Update File: ")
}
