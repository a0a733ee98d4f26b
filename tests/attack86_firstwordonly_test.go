package tests

import (
	"strings"
	"testing"
)

// TestAttack86_LookalikeNamedOnlyInItsFirstWord (eighty-sixth review):
// NonASCIIDetail names each character once, in the word it first appears
// in (seen[rune]; only a URL's host, after "://", is keyed per host). So
// the agent that writes the same character first where it is honest text
// has it named there, and never where it deceives: `echo "Привіт, світ"
// && sh ./scrіpts/deploy.sh --prod` (the Ukrainian і, U+0456, in a
// greeting, then in the agent's scrіpts directory, read as the project's
// scripts) gives "U+0456 (Cyrillic) in "Привіт,"" and nothing of
// scrіpts: the person is told where the Cyrillic letters are, and that
// is the greeting. No flood of decoys is needed, nothing is "more"; the
// same holds for a host written without a scheme (git@gіthub.com:…) and a
// command or file name.
//
// Root cause: domain/lookalike.go NonASCIIDetail dedupes by rune (the key
// is the rune alone outside URL hosts), so a later, more deceiving
// occurrence (rank 2: beside ASCII letters) is dropped in favour of the
// first (rank 3: a word of its own script).
//
// Fix: key each occurrence by rune and word (or rank): name a character
// again in every word of a higher rank than the one it was named in (at
// least in each word that holds ASCII letters), within the same bounds.
//
// Control: without the greeting the line names U+0456 in scrіpts.
//
// Fixed: NonASCIIDetail names a character again in a word where it ranks
// higher than where it was named, and a letter or digit that is a
// lookalike beside ASCII ones again in each such word (and a host's in
// each host), within the same bounds (eight shown, "and N more").
func TestAttack86_LookalikeNamedOnlyInItsFirstWord(t *testing.T) {
	t.Parallel()
	show := askedCommandShown(t)
	const target = "./scr\u0456pts/deploy.sh"
	if alone := show("c86w-alone", "sh "+target+" --prod"); !strings.Contains(alone, `U+0456 (Cyrillic) in "`+target+`"`) {
		t.Fatalf("control: the lookalike alone is not named in its word:\n%s", alone)
	}
	for _, tc := range []struct{ id, cmd, word string }{
		{"c86w-path", "echo \"\u041f\u0440\u0438\u0432\u0456\u0442, \u0441\u0432\u0456\u0442\" && sh " + target + " --prod", target},
		{"c86w-host", "echo \"\u041f\u0440\u0438\u0432\u0456\u0442\" && git clone git@g\u0456thub.com:golang/go.git", "git@g\u0456thub.com:golang/go.git"},
	} {
		got := show(tc.id, tc.cmd)
		if !strings.Contains(got, `U+0456 (Cyrillic) in "`+tc.word+`"`) {
			t.Errorf("U+0456 is named only in the greeting, never in %s, where it reads as an ASCII i:\n%s", tc.word, got)
		}
	}
}
