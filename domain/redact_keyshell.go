package domain

import (
	"path"
	"strings"
)

// A key block's body is hidden as key material (redactKeyBlocks), and any
// word of base64 bytes may also be what a shell runs: a program named by a
// relative path, an assignment (HOME=testdata/x…, then git reads the
// agent's configuration there). In a shell command the place of the words
// tells the two apart: a key's text is data, in quotes or a here-document;
// after a marker in a comment or on a line of its own (# -----BEGIN …),
// the next line is one the shell runs (the thirty-ninth review).
// keyMarkersInData reads a command so, and a command with any word the
// key reader would hide outside data has no key block hidden in anything
// its request shows (Action.memo): what it runs stays in view.
//
// It reads the command as the shell that runs it reads it, and no deeper:
// data another shell then runs (bash <<EOF, bash -c '…', eval "…", a pipe
// to sh) is data here, and what its lines run is no more in view than a
// script file's lines are when the command runs the file. A shell's own
// -c script in an argv (["bash", "-c", S]) is read as the command it is.

// keyMarkersInData reports whether every span of the shell command cmd
// that redactKeyBlocks would hide as key material is, as the shell reads
// cmd, inside quotes or a here-document's body. Where the reading is
// unsure (an arithmetic expression, a command substitution inside double
// quotes, a here-document whose delimiter it cannot read) what follows
// counts as outside: the block is shown.
func keyMarkersInData(cmd string) bool {
	if !strings.Contains(cmd, keyBlockWord) && !strings.Contains(cmd, puttyPrivateLines) && !strings.Contains(cmd, untrustedComment) {
		return true
	}
	var data dataSpans
	read, in := false, true
	keyMaterial(cmd, func(a, e int) {
		if !read {
			data, read = shellDataSpans(cmd), true
		}
		in = in && data.holds(a, e)
	})
	return in
}

// argvKeysInData is keyMarkersInData for a command given as an argv: the
// argv as it is shown (ShellJoin quotes every argument: data), and, when
// any argument names a shell (bash -c S, env bash -c S, timeout 5 sh -c --
// S, busybox sh -c S), every argument after it read as a script of its
// own, whichever one that shell runs (its options are not read: the
// forty-second review found a wrapper and a "--" hid the script).
func argvKeysInData(argv []string, joined string) bool {
	if !keyMarkersInData(joined) {
		return false
	}
	for i, a := range argv {
		switch strings.TrimPrefix(path.Base(a), "-") {
		case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox", "yash", "posh", "fish", "rbash", "ksh93", "lksh", "pdksh":
			for _, script := range argv[i+1:] {
				if script != joined && !keyMarkersInData(script) {
					return false
				}
			}
			return true
		}
	}
	return true
}

// dataSpans are the [from, to) spans of a command that are data.
type dataSpans [][2]int

// holds reports whether [a, e) is within one span of d.
func (d dataSpans) holds(a, e int) bool {
	for _, sp := range d {
		if a >= sp[0] && e <= sp[1] {
			return true
		}
	}
	return false
}

// shellDataSpans returns the spans of s that a shell reads as data: the
// insides of single quotes and double quotes, and here-documents' bodies.
// It reads only what bash and dash read alike and it models exactly, and
// stops (returning the spans found before: what follows counts as code)
// at anything else (the forty-second review found the differences): a
// line continuation, a backquote, $' (bash's quote, dash's two words),
// ${ other than ${NAME}, $[ and a subscript (bash's arithmetic), "((", a
// command substitution or backquote inside double quotes, a "<<" inside
// $( … ), a here-document's delimiter bash and dash read apart or one it
// cannot read, and a body of an unquoted one (which the shell expands)
// holding $(, a backquote or a line that ends in a backslash.
func shellDataSpans(s string) dataSpans {
	var out dataSpans
	type heredoc struct {
		delim  string
		tabs   bool
		quoted bool
	}
	var pending []heredoc
	var parens []bool // open ( … ): true for a command substitution's
	wordStart := true
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 < len(s) && s[i+1] == '\n' {
				return out // a line continuation
			}
			i += 2
			wordStart = false
			continue
		case c == '`':
			return out
		case c == '\'':
			e := strings.IndexByte(s[i+1:], '\'')
			if e < 0 {
				return append(out, [2]int{i + 1, len(s)})
			}
			out = append(out, [2]int{i + 1, i + 1 + e})
			i += e + 2
			wordStart = false
			continue
		case c == '$' && i+1 < len(s):
			switch s[i+1] {
			case '\'', '[':
				return out
			case '{':
				e := simpleParam(s, i+2)
				if e < 0 {
					return out
				}
				i = e
				wordStart = false
				continue
			case '(':
				if i+2 < len(s) && s[i+2] == '(' {
					return out // arithmetic: a "<<" in it is a shift
				}
				parens = append(parens, true)
				i += 2
				wordStart = true
				continue
			}
		case c == '"':
			e, sure := dquoteEnd(s, i+1)
			out = append(out, [2]int{i + 1, e})
			if !sure {
				return out
			}
			i = e + 1
			wordStart = false
			continue
		case c == '(':
			if i+1 < len(s) && s[i+1] == '(' {
				return out
			}
			parens = append(parens, false)
		case c == ')':
			if len(parens) > 0 {
				parens = parens[:len(parens)-1]
			}
		case c == '[' && i > 0 && identByte(s[i-1]):
			return out // a subscript: bash reads arithmetic in it
		case c == '#' && wordStart:
			e := strings.IndexByte(s[i:], '\n')
			if e < 0 {
				return out
			}
			i += e // the line break is read below
			continue
		case c == '<' && strings.HasPrefix(s[i:], "<<") && !strings.HasPrefix(s[i:], "<<<"):
			for _, sub := range parens {
				if sub {
					return out // dash ends such a document with the substitution
				}
			}
			j := i + 2
			tabs := j < len(s) && s[j] == '-'
			if tabs {
				j++
			}
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			bash, dash, e, ok := heredocDelim(s, j)
			if !ok || bash != dash {
				return out
			}
			pending = append(pending, heredoc{bash, tabs, strings.ContainsAny(s[j:e], "'\"\\")})
			i = e
			wordStart = false
			continue
		case c == '\n':
			i++
			for _, h := range pending {
				start := i
				for i < len(s) {
					e := strings.IndexByte(s[i:], '\n')
					line, next := s[i:], len(s)
					if e >= 0 {
						line, next = s[i:i+e], i+e+1
					}
					if !h.quoted && (strings.HasSuffix(line, "\\") || strings.Contains(line, "$(") || strings.Contains(line, "`")) {
						return out // the shell expands the body, or joins its lines
					}
					if h.tabs {
						line = strings.TrimLeft(line, "\t")
					}
					if line == h.delim {
						out = append(out, [2]int{start, i})
						i = next
						start = -1
						break
					}
					i = next
				}
				if start >= 0 {
					return append(out, [2]int{start, len(s)}) // never ended
				}
			}
			pending = pending[:0]
			wordStart = true
			continue
		}
		wordStart = strings.IndexByte(" \t;&|()<>", c) >= 0
		i++
	}
	return out
}

// simpleParam returns where ${NAME} whose name starts at i ends (past its
// brace), or -1 for any other ${…}.
func simpleParam(s string, i int) int {
	j := i
	for j < len(s) && identByte(s[j]) {
		j++
	}
	if j == i || j >= len(s) || s[j] != '}' {
		return -1
	}
	return j + 1
}

// identByte reports whether c may be in a shell variable's name.
func identByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// ansiCEnd returns where the $'…' whose text starts at i ends: its
// closing quote, a backslash escaping the byte after it.
func ansiCEnd(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case '\\':
			i += 2
			continue
		case '\'':
			return i
		}
		i++
	}
	return len(s)
}

// dquoteEnd returns where the double-quoted text that starts at i ends,
// and whether it read it with certainty: a $(, $[, ` or ${ (but ${NAME})
// inside starts what it does not follow (bash reads a quote inside ${…}).
func dquoteEnd(s string, i int) (int, bool) {
	for i < len(s) {
		switch s[i] {
		case '\\':
			i += 2
			continue
		case '"':
			return i, true
		case '`':
			return i, false
		case '$':
			if i+1 < len(s) && (s[i+1] == '(' || s[i+1] == '[') {
				return i, false
			}
			if i+1 < len(s) && s[i+1] == '{' {
				if e := simpleParam(s, i+2); e < 0 {
					return i, false
				} else {
					i = e
					continue
				}
			}
		}
		i++
	}
	return len(s), true
}

// heredocDelim reads a here-document's delimiter word at s[i:] and
// returns its readings (bash's and dash's, heredocWord: quotes removed,
// bash's $'…' decoded) and where the word ends.
func heredocDelim(s string, i int) (bash, dash string, end int, ok bool) {
	j := i
	for j < len(s) && strings.IndexByte(" \t\n;&|()<>", s[j]) < 0 {
		switch s[j] {
		case '\\':
			j += 2
			continue
		case '\'', '"':
			q := s[j]
			if q == '\'' && j > i && s[j-1] == '$' {
				j = ansiCEnd(s, j+1) + 1
				continue
			}
			k := j + 1
			for k < len(s) && s[k] != q {
				if q == '"' && s[k] == '\\' {
					k++
				}
				k++
			}
			if k >= len(s) {
				return "", "", j, false
			}
			j = k + 1
			continue
		}
		j++
	}
	if j > len(s) {
		j = len(s)
	}
	if j == i {
		return "", "", j, false
	}
	bash, dash = heredocWord(s[i:j])
	return bash, dash, j, bash != "" && dash != ""
}
