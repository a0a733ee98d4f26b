package domain

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// redactPieces are the pieces the texts below are made of: the words and
// bytes pipedEcho and inDoubleQuotes look at.
var redactPieces = []string{"echo", "printf", "-n", " ", "\t", "\n", "'%s'", `'%s\n'`, `"%s"`, `"%s\n"`, "%s", ";", "&", "|", "(", "x", "$T", `"`, "'", `\`, "#", "<<", "=", "--api-key"}

// TestPipedEchoBeforeIsTheRegexp: pipedEchoBefore answers as pipedEcho's
// regexp on every text made of the pieces it looks at.
func TestPipedEchoBeforeIsTheRegexp(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		p := strings.Join(rapid.SliceOfN(rapid.SampledFrom(redactPieces), 0, 12).Draw(rt, "p"), "")
		if got, want := pipedEchoBefore(p), pipedEcho().MatchString(p); got != want {
			rt.Fatalf("%q: pipedEchoBefore %v, the regexp %v", p, got, want)
		}
	})
	for _, p := range []string{"echo", "x echo ", "x;echo -n  ", "printf '%s\\n' ", "printf  %s", "xecho", "echo  -n", "printf%s", "(printf \"%s\"\t"} {
		if got, want := pipedEchoBefore(p), pipedEcho().MatchString(p); got != want {
			t.Errorf("%q: pipedEchoBefore %v, the regexp %v", p, got, want)
		}
	}
}

// TestDqScanIsInDoubleQuotes: the incremental scan answers as
// inDoubleQuotes at every increasing position of a text.
func TestDqScanIsInDoubleQuotes(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s := strings.Join(rapid.SliceOfN(rapid.SampledFrom(redactPieces), 0, 16).Draw(rt, "s"), "")
		d := dqScan{s: s}
		i := 0
		for i <= len(s)+1 {
			if got, want := d.at(i), inDoubleQuotes(s, i); got != want {
				rt.Fatalf("%q at %d: dqScan %v, inDoubleQuotes %v", s, i, got, want)
			}
			i += rapid.IntRange(0, 3).Draw(rt, "step")
			if rapid.IntRange(0, 4).Draw(rt, "end") == 0 {
				break
			}
		}
	})
}

// TestCommandStartMemoIsTheWalk: programWord with one memo over many
// positions of a text answers as the walk without it.
func TestCommandStartMemoIsTheWalk(t *testing.T) {
	pieces := append([]string{"timeout", "-s", "KILL", "5", "nice", "-n", "exec", "-a", "sh", "-c", "bash", "-lc", "if", "then", "FOO=1", ">", "out", "--opt", "x=1", "2>&1", "command", "env"}, redactPieces...)
	rapid.Check(t, func(rt *rapid.T) {
		s := strings.Join(rapid.SliceOfN(rapid.SampledFrom(pieces), 1, 24).Draw(rt, "words"), " ")
		memo := csMemo{}
		for _, i := range rapid.SliceOfN(rapid.IntRange(0, len(s)), 1, 12).Draw(rt, "at") {
			if got, want := programWordMemo(s, i, memo), programWord(s, i); got != want {
				rt.Fatalf("%q at %d: with the memo %v, without %v", s, i, got, want)
			}
		}
	})
}

// BenchmarkRedactLongCommand: a command of n secret-named options (or
// options and expansions) redacted; the time grows with n, not n² (the
// hundred-and-forty-seventh review: 98 KB of options took 2.2 s, 122 KB of
// options and expansions 28 s). api's TestAttack147_PreToolUseCostPastHoldWait
// holds the answer's time to the hook's bound.
func BenchmarkRedactLongCommand(b *testing.B) {
	for _, unit := range []string{"--api-key=x ", "--api-key=x $T ", "--password x "} {
		for _, n := range []int{512, 4096, 8192} {
			s := "curl " + strings.Repeat(unit, n)
			b.Run(fmt.Sprintf("%s/n=%d", strings.TrimSpace(unit), n), func(b *testing.B) {
				for b.Loop() {
					m := redactMemo{mode: textMode{shell: true}}
					if m.text(s) == s {
						b.Fatal("nothing was redacted")
					}
				}
			})
		}
	}
}

// TestHiddenAtIsEverySpan: hiddenAt's search over the merged spans
// answers as the walk of every span did, for spans that overlap, touch
// and lie apart, and words (empty ones too) anywhere.
func TestHiddenAtIsEverySpan(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var spans []hiddenSpan
		for range rapid.IntRange(0, 8).Draw(rt, "n") {
			a := rapid.IntRange(0, 40).Draw(rt, "a")
			spans = append(spans, hiddenSpan{a: a, e: a + rapid.IntRange(1, 10).Draw(rt, "len")})
		}
		merged := mergeSpans(spans)
		for range 20 {
			a := rapid.IntRange(0, 55).Draw(rt, "wa")
			e := a + rapid.IntRange(0, 6).Draw(rt, "wlen")
			want := false
			for _, h := range spans {
				if a < h.e && h.a < e {
					want = true
				}
			}
			i := sort.Search(len(merged), func(i int) bool { return merged[i].e > a })
			if got := i < len(merged) && merged[i].a < e; got != want {
				rt.Fatalf("spans %v, word [%d,%d): search %v, every span %v", spans, a, e, got, want)
			}
		}
	})
}

// BenchmarkRedactRepeatedMembers: a prompt (RedactText) of n KiB repeating
// a secret-named assignment or member, in the shapes reviews 183, 185 and
// 187 timed: each grew faster than the text (namedAgain's search per
// assignment; shellScript's pattern over the whole text before each
// quoted member, then its read back over a text without blanks; quoteOpen's
// 8 KiB read back per member). The time now grows with n.
func BenchmarkRedactRepeatedMembers(b *testing.B) {
	for _, unit := range []string{`token=x `, `"token":"x" `, `"token":"x",`, `-c"token":"x" `} {
		for _, kib := range []int{64, 256, 1024} {
			s := strings.Repeat(unit, kib<<10/len(unit))
			b.Run(fmt.Sprintf("%s/KiB=%d", strings.TrimSpace(unit), kib), func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				for b.Loop() {
					if RedactText(s) == s {
						b.Fatal("nothing was redacted")
					}
				}
			})
		}
	}
}
