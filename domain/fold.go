package domain

import (
	"strings"
	"unicode"
)

// FoldName is name as a case-insensitive file system compares it, as far
// as it matters for the names this package protects (all ASCII): lower
// case, and the characters that full Unicode case folding, which ext4,
// f2fs and tmpfs casefold directories and NTFS apply, takes for ASCII
// letters: the long s (ſ), the Kelvin sign, ß and ẞ (ss) and the Latin
// ligatures (ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ). strings.EqualFold and strings.ToLower fold
// simply and missed them (the hundred-and-thirty-ninth review:
// "ruﬆ-toolchain", "prod.tfſtate").
func FoldName(name string) string {
	if isASCII(name) {
		return strings.ToLower(name)
	}
	var b strings.Builder
	for _, r := range name {
		switch r {
		case 'ſ':
			b.WriteByte('s')
		case '\u212A': // Kelvin sign
			b.WriteByte('k')
		case 'ß', 'ẞ':
			b.WriteString("ss")
		case 'ﬀ':
			b.WriteString("ff")
		case 'ﬁ':
			b.WriteString("fi")
		case 'ﬂ':
			b.WriteString("fl")
		case 'ﬃ':
			b.WriteString("ffi")
		case 'ﬄ':
			b.WriteString("ffl")
		case 'ﬅ', 'ﬆ':
			b.WriteString("st")
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// FoldEqual reports whether a and b are one name to a case-insensitive
// file system (FoldName).
func FoldEqual(a, b string) bool {
	if a == b {
		return true
	}
	if isASCII(a) && isASCII(b) {
		return strings.EqualFold(a, b) // no allocation
	}
	return FoldName(a) == FoldName(b)
}
