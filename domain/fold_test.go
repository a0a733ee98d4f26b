package domain

import "testing"

// TestFoldName: the names full case folding takes for ASCII ones fold to
// them (the hundred-and-thirty-ninth review); others stay apart.
func TestFoldName(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{".Rprofile", ".RPROFILE", true},
		{"ruﬆ-toolchain", "rust-toolchain", true},
		{".Rproﬁle", ".rprofile", true},
		{"prod.tfſtate", "prod.tfstate", true},
		{"\u212Aey", "key", true}, // Kelvin sign
		{"straße", "strasse", true},
		{"rust-toolchain", "rust-toolchaim", false},
		{"ſecrets", "fecrets", false},
		{"café", "cafe", false},
	} {
		if got := FoldEqual(c.a, c.b); got != c.same {
			t.Errorf("FoldEqual(%q, %q) = %v, want %v (%q, %q)", c.a, c.b, got, c.same, FoldName(c.a), FoldName(c.b))
		}
	}
}
