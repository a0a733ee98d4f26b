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
// argv as it is shown (ShellJoin quotes every argument: data), and a
// shell's -c script, which that shell runs, read as a command of its own.
func argvKeysInData(argv []string, joined string) bool {
	if !keyMarkersInData(joined) {
		return false
	}
	if len(argv) < 3 {
		return true
	}
	switch strings.TrimPrefix(path.Base(argv[0]), "-") {
	case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox", "yash", "posh", "fish":
	default:
		return true
	}
	for i, a := range argv[1:] {
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "c") && i+2 < len(argv) {
			return argv[i+2] == joined || keyMarkersInData(argv[i+2])
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
// insides of single quotes, $'…' and double quotes, and here-documents'
// bodies. It stops at what it does not read with certainty (returning the
// spans found before): an arithmetic "((", a command substitution or
// backquote inside double quotes, a here-document's delimiter it cannot
// read.
func shellDataSpans(s string) dataSpans {
	var out dataSpans
	type heredoc struct {
		bash, dash string
		tabs       bool
	}
	var pending []heredoc
	wordStart := true
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			i += 2
			wordStart = false
			continue
		case c == '\'':
			e := strings.IndexByte(s[i+1:], '\'')
			if e < 0 {
				return append(out, [2]int{i + 1, len(s)})
			}
			out = append(out, [2]int{i + 1, i + 1 + e})
			i += e + 2
			wordStart = false
			continue
		case c == '$' && i+1 < len(s) && s[i+1] == '\'':
			e := ansiCEnd(s, i+2)
			out = append(out, [2]int{i + 2, e})
			i = e + 1
			wordStart = false
			continue
		case c == '"':
			e, sure := dquoteEnd(s, i+1)
			out = append(out, [2]int{i + 1, e})
			if !sure {
				return out
			}
			i = e + 1
			wordStart = false
			continue
		case c == '(' && i+1 < len(s) && s[i+1] == '(':
			return out // arithmetic: a "<<" in it is a shift
		case c == '#' && wordStart:
			e := strings.IndexByte(s[i:], '\n')
			if e < 0 {
				return out
			}
			i += e // the line break is read below
			continue
		case c == '<' && strings.HasPrefix(s[i:], "<<") && !strings.HasPrefix(s[i:], "<<<"):
			j := i + 2
			tabs := j < len(s) && s[j] == '-'
			if tabs {
				j++
			}
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			bash, dash, e, ok := heredocDelim(s, j)
			if !ok {
				return out
			}
			pending = append(pending, heredoc{bash, dash, tabs})
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
					if h.tabs {
						line = strings.TrimLeft(line, "\t")
					}
					if line == h.bash || line == h.dash {
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
// and whether it read it with certainty: a $( or ` inside starts a command
// whose own quotes it does not follow.
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
			if i+1 < len(s) && s[i+1] == '(' {
				return i, false
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
