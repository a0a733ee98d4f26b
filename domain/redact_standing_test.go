package domain

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// setsNameSearch is setsName, which standingNames replaced: a search of s
// for each occurrence of name (the reference TestStandingNames checks the
// one-pass set against).
func setsNameSearch(s, name string) bool {
	for i := strings.Index(s, name); i >= 0; {
		end := i + len(name)
		whole := (i == 0 || !identByte(s[i-1])) && (end == len(s) || !identByte(s[end]))
		expanded := i > 0 && s[i-1] == '$' || i > 1 && s[i-1] == '{' && s[i-2] == '$'
		if whole && !expanded {
			return true
		}
		next := strings.Index(s[i+1:], name)
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return false
}

// TestStandingNames: the one-pass set answers as the search did, for
// every identifier, on texts of names, expansions and the shell's syntax.
func TestStandingNames(t *testing.T) {
	table := []struct{ s, name string }{
		{"A=1; echo $A", "A"}, {"echo $A", "A"}, {"echo ${A}", "A"}, {"echo $AB A", "A"},
		{"read A", "A"}, {"echo x$A", "A"}, {"${A:-x}", "A"}, {"$$A", "A"}, {"{A}", "A"},
		{"$ A", "A"}, {"A", "A"}, {"_A=1", "A"}, {"9A", "A"}, {"a.A.b", "A"}, {"", "A"},
		{"echo $v00001 $v00002", "v00001"}, {"sh -c 'v1=2; echo $v1'", "v1"},
	}
	for _, c := range table {
		if got, want := standing(c.s, c.name), setsNameSearch(c.s, c.name); got != want {
			t.Errorf("standing(%q, %q) = %v, the search %v", c.s, c.name, got, want)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOf(rapid.SampledFrom([]string{"A", "B", "AB", "a_1", "1", "_", "$", "{", "}", "${", " ", "=", "'", "\"", ";", "-", ".", "\\", "\n", "é"})).Draw(t, "parts")
		s := strings.Join(parts, "")
		name := rapid.SampledFrom([]string{"A", "B", "AB", "a_1", "_", "a", "A_B"}).Draw(t, "name")
		if got, want := standing(s, name), setsNameSearch(s, name); got != want {
			t.Fatalf("standing(%q, %q) = %v, the search %v", s, name, got, want)
		}
	})
}

// standing reports whether name is in standingNames(s).
func standing(s, name string) bool {
	_, ok := standingNames(s)[name]
	return ok
}

// BenchmarkPlainDistinctNames: the plain check of a nested script of
// distinct expansions in a text that hides a value (the
// hundred-and-ninety-third review's shape, 32 KB); linear in the names.
func BenchmarkPlainDistinctNames(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`API_TOKEN=wr1tesHereQ9x7Lm; sh -c 'sh -c "echo`)
	for i := 0; sb.Len() < 32<<10; i++ {
		fmt.Fprintf(&sb, " $v%05d", i)
	}
	sb.WriteString(`"'`)
	s := sb.String()
	for b.Loop() {
		computesProgram(s, nil)
	}
}
