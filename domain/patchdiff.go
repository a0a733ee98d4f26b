package domain

import (
	"slices"
	"strconv"
	"strings"
)

// MaxDiffName is the longest file name of a diff the classifier reads (a
// path the kernel takes is shorter than PATH_MAX, 4,096 bytes with its
// NUL): each of a name's strip levels is judged, and a longer name is
// refused rather than cut into thousands of paths to resolve.
const MaxDiffName = 4095

// MaxDiffPaths bounds the names a diff's headers may stand for (each name
// at each strip level, cut at each white space): a diff that names more is
// refused rather than judged in part.
const MaxDiffPaths = 50000

// unifiedDiffPaths returns the files a unified diff (`diff -u`, `git diff`)
// writes: the old and new names of its `--- ` / `+++ ` headers (either
// alone too) and of git's
// `rename from/to` and `copy to` lines (a pure rename or mode change has no
// ---/+++ headers, so `diff --git a/X b/Y` names them too). Hunks are
// skipped by their line counts, so a removed line that starts with "-- "
// (a diff line "--- …") is never read as a header. `/dev/null` (an added or
// deleted file's other side) names no file; a name is judged at every
// strip level, as written and without each of its leading elements (the
// tool applying the diff chooses: git apply strips one, patch -pN N, and
// patch without -p all but the last), and a C-quoted name (git's) both as
// written and decoded (diffNames). What else GNU patch reads names
// a file too: a header indented with blanks or X's, a context diff's
// "*** old" / "--- new" pair, an "Index:" line. ok is false when text is
// not a diff (no header at all).
func unifiedDiffPaths(text string) (paths []string, ok bool) {
	var starNames []string
	var oldLeft, newLeft int // lines of the current hunk still to skip
	seen := map[string]bool{}
	put := func(p string) {
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	add := func(p string) {
		if p == "" || p == "/dev/null" || len(paths) > MaxDiffPaths {
			return
		}
		put(p)
		if len(p) > MaxDiffName {
			return // refused whole (patch); no tails to compute
		}
		// Every strip level: git apply strips the first element of any
		// name (-p1, its default), GNU patch -pN strips N, and without
		// -p writes the last element in its working directory.
		for i := 0; i < len(p); i++ {
			if p[i] == '/' {
				if t := strings.TrimLeft(p[i+1:], "/"); t != "" {
					put(t)
				}
			}
		}
	}
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if oldLeft > 0 || newLeft > 0 {
			switch {
			case strings.HasPrefix(line, "\\"): // "\ No newline at end of file"
			case strings.HasPrefix(line, "-"):
				oldLeft--
			case strings.HasPrefix(line, "+"):
				newLeft--
			default:
				oldLeft--
				newLeft--
			}
			continue
		}
		// GNU patch finds a header after blanks and X's (a patch indented
		// in a mail); so are they read here.
		s := strings.TrimLeft(line, " \tX")
		stars := starNames
		starNames = nil
		switch {
		case strings.HasPrefix(s, "--- ") && contextRange(s):
		case strings.HasPrefix(s, "--- ") && stars != nil:
			// A context diff: "*** old" then "--- new".
			for _, n := range append(stars, diffNames(s[4:])...) {
				add(n)
				if strings.HasPrefix(n, "a/") || strings.HasPrefix(n, "b/") {
					add(n[2:])
				}
			}
			ok = true
		case strings.HasPrefix(s, "*** ") && !contextRange(s):
			starNames = diffNames(s[4:])
		case strings.HasPrefix(s, "Index:"):
			// GNU patch may take the file from it (a normal diff has no
			// other name), with or without white space after the colon.
			for _, n := range diffNames(s[len("Index:"):]) {
				add(n)
			}
			ok = true
		case strings.HasPrefix(s, "--- "), strings.HasPrefix(s, "+++ "):
			// Each name, at every strip level (add), whether or not the
			// other header follows: GNU patch applies a hunk after a lone
			// "--- x" to x. git's a/ and b/ prefixes are stripped by patch
			// -p1, not by -p0, and a/ may be a symlink in the workspace;
			// the call needs all allowed.
			for _, n := range diffNames(s[4:]) {
				add(n)
			}
			ok = true
		case strings.HasPrefix(s, "@@ "):
			// GNU patch starts a hunk at "@@ -" alone (it skips any other
			// line between files, and reads the next header); an indented
			// hunk's lines are not counted either.
			if s == line && strings.HasPrefix(s, "@@ -") {
				oldLeft, newLeft = hunkCounts(s)
			}
		case strings.HasPrefix(s, "rename from "), strings.HasPrefix(s, "rename to "), strings.HasPrefix(s, "copy to "):
			_, rest, _ := strings.Cut(s, " ")
			_, rest, _ = strings.Cut(rest, " ")
			for _, n := range diffNames(rest) {
				add(n)
			}
			ok = true
		case strings.HasPrefix(s, "diff --git "):
			if names := gitHeaderNames(s[len("diff --git "):]); len(names) > 0 {
				for _, n := range names {
					add(n)
				}
				ok = true
			}
		}
	}
	if len(paths) > MaxDiffPaths {
		return paths, ok // more than the classifier judges: refused (patch)
	}
	slices.Sort(paths)
	return paths, ok
}

// contextRange reports whether s is a context diff's hunk range line,
// "*** 1,5 ****" or "--- 1,5 ----", which names no file.
func contextRange(s string) bool {
	mark := s[:3]
	rest, found := strings.CutSuffix(s[4:], " "+mark+string(mark[0]))
	if !found || rest == "" {
		return false
	}
	return strings.Trim(rest, "0123456789,") == ""
}

// diffNames reads the file name of a diff header line (after "--- ",
// "+++ ", "rename to "…): the name as it stands, up to a tab (a timestamp
// follows it), each part of it before white space, and, when it is C-quoted as git writes a name with special
// characters ("b/\303\251.txt"), the name decoded, which git apply and GNU
// patch read: both are judged (a tool that does not decode writes the
// other).
func diffNames(raw string) []string {
	// GNU patch reads a line's name as a C string: a NUL ends it.
	if i := strings.IndexByte(raw, 0); i >= 0 {
		raw = raw[:i]
	}
	raw = strings.TrimSpace(strings.TrimRight(raw, "\r"))
	plain := raw
	if i := strings.IndexByte(plain, '\t'); i >= 0 { // "--- name\ttimestamp"
		plain = plain[:i]
	}
	plain = strings.TrimSpace(plain)
	names := []string{plain}
	// GNU patch ends a name at its first white space when no tab follows
	// ("--- .envrc x" patches .envrc), and git apply drops a timestamp
	// after a space ("--- a/x 2026-01-01 00:00:00 +0000"): each part of
	// the name before white space may be the name.
	for i := 0; i < len(plain); i++ {
		if strings.IndexByte(" \v\f\r", plain[i]) >= 0 && i > 0 && plain[i-1] != plain[i] {
			names = append(names, strings.TrimSpace(plain[:i]))
		}
	}
	if dec, ok := unquoteC(raw); ok {
		names = append(names, dec)
	}
	return names
}

// gitHeaderNames reads the two names of a "diff --git" line (after its
// prefix), where a git patch without "--- "/"+++ " headers (a binary
// patch, a mode change, an empty file) names its file: either may be
// C-quoted, and git apply decodes it. Unquoted, the names are split where
// the second starts, at " b/" (git's own guess when they are equal).
func gitHeaderNames(rest string) []string {
	var names []string
	if dec, n, ok := unquoteCLen(rest); ok {
		// "a/x" then the second name, quoted or not.
		return append(append(names, dec), diffNames(rest[n:])...)
	}
	if a, b, found := strings.Cut(rest, " b/"); found {
		names = append(names, a, "b/"+b)
	}
	if a, b, found := strings.Cut(rest, ` "`); found {
		names = append(names, a)
		names = append(names, diffNames(`"`+b)...)
	}
	return names
}

// unquoteC decodes a C-quoted name at the start of s, as git quotes one:
// \a \b \t \n \v \f \r \" \\ and octal bytes (up to three digits, at
// most 0377); what follows the closing quote is ignored. ok is false when s
// does not start with a quote or the quoting is malformed.
func unquoteC(s string) (string, bool) {
	dec, _, ok := unquoteCLen(s)
	return dec, ok
}

// unquoteCLen is unquoteC, and the length of the quoted name in s.
func unquoteCLen(s string) (string, int, bool) {
	if !strings.HasPrefix(s, "\"") {
		return "", 0, false
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			return b.String(), i + 1, true
		case '\\':
			i++
			if i == len(s) {
				return "", 0, false
			}
			if e := strings.IndexByte(`abtnvfr"\`, s[i]); e >= 0 {
				b.WriteByte("\a\b\t\n\v\f\r\"\\"[e])
				continue
			}
			v, n := 0, 0
			for n < 3 && i+n < len(s) && s[i+n] >= '0' && s[i+n] <= '7' {
				v = v*8 + int(s[i+n]-'0')
				n++
			}
			if n == 0 || v > 0377 {
				return "", 0, false
			}
			b.WriteByte(byte(v))
			i += n - 1
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}

// hunkCounts reads "@@ -l[,s] +l[,s] @@": the old and new line counts (1
// when the count is omitted).
func hunkCounts(line string) (int, int) {
	fields := strings.Fields(line)
	if len(fields) < 3 {
		return 0, 0
	}
	count := func(f string) int {
		_, s, found := strings.Cut(f[1:], ",")
		if !found {
			return 1
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return 0
		}
		return n
	}
	return count(fields[1]), count(fields[2])
}
