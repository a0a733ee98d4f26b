package domain

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TerminalSafe is s made safe to print on a terminal line: control characters
// (C0, DEL, C1, so escape sequences and line breaks too), Unicode's
// direction and other format controls (U+202E and its kind, zero-width
// characters) and invalid UTF-8 are written as Go escapes (\x1b, \n,
// \u202e). The fields of an approval request come from the agent: an
// escape sequence that erased or concealed part of a command, or a line
// break that forged a line of its own, would show the person deciding a
// different request from the one they answer.
//
// It is one-to-one: a backslash that would read as the start of an escape
// (one before another backslash, before a letter an escape begins with,
// or before a character that is escaped) is written "\\", so the two
// characters \ and n of a command are never shown as its line break is
// (the thirty-fourth review: a one-line command with a literal "\n" showed
// as the here-document it was not). Other backslashes (\d, \$) stay as
// they are.
func TerminalSafe(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
		case escapeRune(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		case r == '\\' && backslashReadsAsEscape(s[i+1:]):
			b.WriteString(`\\`)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// escapeLetters are the characters an escape TerminalSafe writes begins
// with after its backslash.
const escapeLetters = "abfnrtvxuU"

// backslashReadsAsEscape reports whether a backslash followed by rest
// would read, once shown, as the start of an escape.
func backslashReadsAsEscape(rest string) bool {
	if rest == "" {
		return false
	}
	r, size := utf8.DecodeRuneInString(rest)
	return r == '\\' || strings.ContainsRune(escapeLetters, r) || (r == utf8.RuneError && size == 1) || escapeRune(r)
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || escapeRune(r) || (r == '\\' && backslashReadsAsEscape(s[i+1:])) {
			return true
		}
		i += size
	}
	return false
}

// escapeRune: controls and format characters (category Cf: bidi
// embeddings, overrides and isolates, zero-width joiners and spaces), and
// what draws as a blank but is no ASCII space (BlankDrawing: a shell reads
// `done\u00a0#` as one word).
func escapeRune(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' || BlankDrawing(r)
}
