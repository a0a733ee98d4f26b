package domain

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"
)

// untermSafe reads TerminalSafe's output back: "\\" is a backslash, a
// backslash before an escape letter starts that escape, any other is
// itself.
func untermSafe(s string) (string, bool) {
	var b strings.Builder
	for len(s) > 0 {
		switch {
		case s[0] != '\\':
			_, size := utf8.DecodeRuneInString(s)
			b.WriteString(s[:size])
			s = s[size:]
		case len(s) >= 2 && s[1] == '\\':
			b.WriteByte('\\')
			s = s[2:]
		case len(s) >= 2 && strings.IndexByte(escapeLetters, s[1]) >= 0:
			v, multibyte, tail, err := strconv.UnquoteChar(s, 0)
			if err != nil {
				return "", false
			}
			if multibyte || v >= utf8.RuneSelf && s[1] != 'x' {
				b.WriteRune(v)
			} else {
				b.WriteByte(byte(v))
			}
			s = tail
		default:
			b.WriteByte('\\')
			s = s[1:]
		}
	}
	return b.String(), true
}

// TestTerminalSafeReadsBack: what TerminalSafe shows reads back as the text
// it was made from, so two texts are never shown alike (the thirty-fourth
// review: the two characters \ and n were shown as a line break is), and
// its output holds no character it escapes. Backslashes that cannot start
// an escape stay single (\d, \$, a final one).
func TestTerminalSafeReadsBack(t *testing.T) {
	alphabet := []string{`\`, "n", "x", "u", "U", "t", "1", "b", "d", "$", "{", "\n", "\r", "\x1b", "\u202e", "\x85", "\u0085", "\xff", "é", " "}
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOfN(rapid.SampledFrom(alphabet), 0, 12).Draw(t, "parts")
		s := strings.Join(parts, "")
		shown := TerminalSafe(s)
		back, ok := untermSafe(shown)
		if !ok || back != s {
			t.Fatalf("%q shown as %q reads back as %q (%v)", s, shown, back, ok)
		}
		for _, r := range shown {
			if escapeRune(r) {
				t.Fatalf("%q shown as %q holds %U", s, shown, r)
			}
		}
	})
	for in, want := range map[string]string{`grep -E '\d+' a\$b \`: `grep -E '\d+' a\$b \`, `a\nb`: `a\\nb`, "a\nb": `a\nb`, "\\\n": `\\\n`} {
		if got := TerminalSafe(in); got != want {
			t.Errorf("TerminalSafe(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTerminalSafeShowsBlanks: what draws as a blank but is no ASCII space
// is shown as an escape, so `done<U+00A0>#` (one word to a shell, no
// comment) does not read as `done #` (the eighty-third review), nor
// scripts<U+FFFC> as scripts (U+FFFC draws nothing: the eighty-sixth); the
// ASCII space and accented letters are shown as they are.
func TestTerminalSafeShowsBlanks(t *testing.T) {
	for _, r := range []rune{'\u00a0', '\u2002', '\u202f', '\u3000', '\u2800', '\u3164', '\uffa0', '\u115f', '\ufe00', '\u034f', '\U000e0100', '\ufffc', '\u303f', '\U0001d159', '\U00016fe4'} {
		got := TerminalSafe("done" + string(r) + "#")
		if strings.ContainsRune(got, r) || got == "done#" {
			t.Errorf("U+%04X shown as %q", r, got)
		}
		if back, ok := untermSafe(got); !ok || back != "done"+string(r)+"#" {
			t.Errorf("U+%04X: %q reads back as %q", r, got, back)
		}
	}
	if got := TerminalSafe("café done #"); got != "café done #" {
		t.Errorf("control: %q", got)
	}
}

// TestBlankSymbolsInConsole: the console escapes what BlankDrawing names
// by no Unicode property (blankSymbols): app.js's hiddenChars, and the
// look-ahead that doubles a backslash before one, hold each (the
// eighty-sixth review: U+FFFC was escaped by neither).
func TestBlankSymbolsInConsole(t *testing.T) {
	js, err := os.ReadFile("../api/ui/app.js")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"hiddenChars", "escapeLike"} {
		_, def, ok := strings.Cut(string(js), "const "+name+" = ")
		if !ok {
			t.Fatalf("no %s in app.js", name)
		}
		def, _, _ = strings.Cut(def, "\n")
		for _, r := range blankSymbols + "\u2800\u3164\uffa0\u115f\u1160" {
			esc := fmt.Sprintf(`\u%04x`, r)
			if r > 0xffff {
				esc = fmt.Sprintf(`\u{%x}`, r)
			}
			if !strings.Contains(def, esc) {
				t.Errorf("app.js %s lacks %s (BlankDrawing)", name, esc)
			}
		}
	}
}
