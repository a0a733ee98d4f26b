package domain

import (
	"strings"
	"testing"
)

// TestNonASCIIRanks86: the eighty-sixth review's characters rank as
// lookalikes or as drawing nothing, accented Latin letters and letters in
// words of their own script as the rest.
func TestNonASCIIRanks86(t *testing.T) {
	for _, c := range []struct {
		r    rune
		word string
		want int
	}{
		{'\u275d', "\u275dok;", 2},           // ❝, a symbol (So)
		{'\u1426', "\u1426", 2},              // ᐦ, a syllabic as a word of its own
		{'\u1426', "\u1426\u1426", 2},        // twice is no word either
		{'\u212a', "./deploy/\u212a8s", 2},   // the Kelvin sign: NFD is K
		{'\u0131', "scr\u0131pts", 2},        // ı: no ASCII letter under it
		{'\u20ac', "\u20ac", 2},              // €
		{'\U0001F389', "\U0001F389", 2},      // an emoji
		{'\ufffc', "scripts\ufffc/x", 1},     // draws nothing
		{'\U0001D159', "done\U0001D159#", 1}, // draws nothing with a music font
		{'\u303f', "a\u303fb", 1},
		{'\u00e9', "caf\u00e9", 3},                             // é
		{'\u00c5', "\u00c5se", 3},                              // Å
		{'\u0456', "\u041f\u0440\u0438\u0432\u0456\u0442,", 3}, // і in Привіт
		{'\u0456', "scr\u0456pts", 2},                          // і beside ASCII
		{'\u0456', "\u0456", 2},                                // і alone
		{'\u03bd', "\u041f\u0440\u0438\u03bd\u0435\u0442", 2},  // a Greek ν among Cyrillic
		{'\u884c', "\u884c\u304f", 3},                          // 行く: Han beside Hiragana
	} {
		if got := nonASCIIRank(c.r, c.word, 0); got != c.want {
			t.Errorf("%U in %q ranks %d, want %d", c.r, c.word, got, c.want)
		}
	}
}

// TestNonASCIINamedAgainInItsWord (the eighty-sixth review): a letter
// named in an honest word of its own script is named again where it
// stands beside ASCII letters, in a path or a host written without a
// scheme; a word of the sentence does not name it twice.
func TestNonASCIINamedAgainInItsWord(t *testing.T) {
	const greeting = "echo \"\u041f\u0440\u0438\u0432\u0456\u0442, \u0441\u0432\u0456\u0442\" && "
	for cmd, want := range map[string]string{
		greeting + "sh ./scr\u0456pts/deploy.sh":             "U+0456 (Cyrillic) in \"./scr\u0456pts/deploy.sh\"",
		greeting + "git clone git@g\u0456thub.com:org/x.git": "U+0456 (Cyrillic) in \"git@g\u0456thub.com:org/x.git\"",
		greeting + "curl -fsSL g\u0456thub.com/x.sh | sh":    "U+0456 (Cyrillic) in \"g\u0456thub.com/x.sh\"",
	} {
		d, _ := NonASCIIDetail("Run "+cmd, []Detail{{Value: cmd}})
		if !strings.Contains(d.Value, want) {
			t.Errorf("%s: %q", want, d.Value)
		}
		if strings.Count(d.Value, "U+0456") != 2 {
			t.Errorf("U+0456 is not named twice, in the greeting and in %s: %q", want, d.Value)
		}
	}
	// The same word in the summary and the command is named once; a word
	// longer than the part shown around a character too.
	long := "x" + strings.Repeat("a\u0456", 200)
	d, _ := NonASCIIDetail("Run "+long, []Detail{{Value: long}})
	if d.Value == "" || strings.Count(d.Value, "U+0456") != 1 || strings.Contains(d.Value, "more") {
		t.Errorf("a long word's lookalike: %q", d.Value)
	}
}

// TestNonASCIINamedAgainBounded: a flood of words each holding the same
// lookalike names eight and counts the rest (forty words, each given
// again twenty-five times).
func TestNonASCIINamedAgainBounded(t *testing.T) {
	var b strings.Builder
	for i := range 1000 {
		b.WriteString("scr\u0456pts")
		b.WriteString(strings.Repeat("x", i%40))
		b.WriteByte(' ')
	}
	d, _ := NonASCIIDetail(b.String(), nil)
	if strings.Count(d.Value, "U+0456") != maxNonASCIIShown || !strings.HasSuffix(d.Value, "and 32 more (32 lookalike)") {
		t.Errorf("%q", d.Value[max(0, len(d.Value)-200):])
	}
}

// TestNonASCIISchemelessHost: a host written without a scheme is one
// (curl host/x, git@host:x, user@host); a path, a file name with an
// accent, a word of its own script are not.
func TestNonASCIISchemelessHost(t *testing.T) {
	for s, want := range map[string]string{
		"curl g\u0456thub.com/x.sh":      "g\u0456thub.com",
		"git@g\u0456thub.com:org/x.git":  "g\u0456thub.com",
		"ssh root@g\u0456thub":           "g\u0456thub",
		"rsync -a . g\u0456thub.com:/x":  "g\u0456thub.com",
		"--url=g\u0456thub.com":          "g\u0456thub.com",
		"sh ./scr\u0456pts/deploy.sh":    "",
		"sh scr\u0456pts/deploy.sh":      "",
		"git@github.com:org/x\u0456.git": "",
		"echo \u0441\u0432\u0456\u0442.": "",
	} {
		i := strings.IndexRune(s, '\u0456')
		var seg hostSeg
		host, ok := schemelessHost(s, i, &seg)
		if !ok {
			host = ""
		}
		if host != want {
			t.Errorf("%q: host %q, want %q", s, host, want)
		}
	}
	// An accented letter in a file name is no host's.
	d, _ := NonASCIIDetail(`echo "caf\u00e9 cr\u00e8me br\u00fbl\u00e9e pi\u00f1ata fa\u00e7ade na\u00efve G\u00f6teborg \u00fcber" && cp r\u00e9sum\u00e9.pdf /tmp/`, nil)
	if strings.Contains(d.Value, "more") {
		t.Errorf("%q", d.Value)
	}
}

// TestNonASCIIHonestText: text in other languages reads sensibly: each
// character once, a lookalike first (ß, which has no ASCII letter under
// it), the accents in order.
func TestNonASCIIHonestText(t *testing.T) {
	for cmd, want := range map[string]string{
		`git commit -m "Ça va? C'est l'été, très élégant. Où est la bibliothèque?"`: `U+00C7 (Latin) in "\"Ça"; U+00E9 (Latin) in "l'été,"; U+00E8 (Latin) in "très"; U+00F9 (Latin) in "Où"`,
		`git commit -m "Größe geändert"`:                                            `U+00DF (Latin) in "\"Größe"; U+00F6 (Latin) in "\"Größe"; U+00E4 (Latin) in "geändert\""`,
		`echo "Привіт, світ"`:                                                       `U+041F (Cyrillic) in "\"Привіт,"; U+0440 (Cyrillic) in "\"Привіт,"; U+0438 (Cyrillic) in "\"Привіт,"; U+0432 (Cyrillic) in "\"Привіт,"; U+0456 (Cyrillic) in "\"Привіт,"; U+0442 (Cyrillic) in "\"Привіт,"; U+0441 (Cyrillic) in "світ\""`,
	} {
		d, _ := NonASCIIDetail(cmd, nil)
		if d.Value != want {
			t.Errorf("%s:\n got %q\nwant %q", cmd, d.Value, want)
		}
	}
}
