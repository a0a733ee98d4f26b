package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"

	"pgregory.net/rapid"
)

// TestSensitiveIndexAgreesWithEachRule checks that the index of a view's
// sensitive rules answers as trying every rule does, for paths built from
// the rules' own elements (so that many match), in other cases, and with
// patterns whose first element is a pattern or whose pattern is "/".
func TestSensitiveIndexAgreesWithEachRule(t *testing.T) {
	ws := tempWorkspace(t)
	for _, extra := range [][]string{
		{"/var/lib/turnstile"},
		{"/*/wild-first/key", ws + "/Mixed/Case.Key", "/proc/*/environ"},
		{"/"},
	} {
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, domain.KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true})
		domain.AddSensitivePaths(s, extra)
		v := buildFSView(&s.Sandbox.Filesystem, false)
		if v.sensitiveIndex() == nil || len(v.sensitive) < 50 {
			t.Fatalf("view of %v: %d sensitive rules", extra, len(v.sensitive))
		}
		names := map[string]bool{"x": true, "alice": true, "1": true, "self": true, "HOME": true, "ETC": true, "Root": true}
		for _, r := range v.sensitive {
			for _, p := range append([][]string{r.parts, r.canonical}, r.aliases...) {
				for _, n := range p {
					n = strings.ReplaceAll(n, "*", "alice")
					names[n] = true
					names[strings.ToUpper(n)] = true
				}
			}
		}
		pool := make([]string, 0, len(names))
		for n := range names {
			pool = append(pool, n)
		}
		var hits, misses int
		// Each rule's own paths, in three cases, and a path below each.
		for _, r := range v.sensitive {
			for _, pat := range append([][]string{r.parts, r.canonical}, r.aliases...) {
				p := "/" + strings.ReplaceAll(strings.Join(pat, "/"), "*", "Alice")
				for _, q := range []string{p, strings.ToUpper(p), strings.ToLower(p), p + "/below"} {
					want := v.sensitiveMatchEach(appendParts(nil, q))
					if have := v.sensitiveMatch(q); have != want {
						t.Fatalf("%s: indexed %v, each rule %v", q, have, want)
					}
				}
			}
		}
		rapid.Check(t, func(rt *rapid.T) {
			var got []string
			if rapid.Bool().Draw(rt, "fromRule") {
				r := v.sensitive[rapid.IntRange(0, len(v.sensitive)-1).Draw(rt, "rule")]
				for _, n := range r.parts {
					got = append(got, strings.ReplaceAll(n, "*", rapid.SampledFrom([]string{"alice", "1", "self"}).Draw(rt, "star")))
				}
				if n := rapid.IntRange(0, len(got)).Draw(rt, "keep"); n < len(got) {
					got = got[:n]
				}
			}
			got = append(got, rapid.SliceOfN(rapid.SampledFrom(pool), 0, 4).Draw(rt, "tail")...)
			for i := range got {
				if rapid.IntRange(0, 2).Draw(rt, "upper") == 0 {
					got[i] = strings.ToUpper(got[i])
				}
			}
			p := "/" + strings.Join(got, "/")
			want := v.sensitiveMatchEach(appendParts(nil, p))
			if have := v.sensitiveMatch(p); have != want {
				rt.Fatalf("%s: indexed %v, each rule %v", p, have, want)
			}
			if want {
				hits++
			} else {
				misses++
			}
		})
		if hits == 0 || (misses == 0 && extra[0] != "/") {
			t.Fatalf("view of %v: %d paths matched, %d did not: the paths did not try both answers", extra, hits, misses)
		}
	}
}

// BenchmarkSensitiveMatch compares the index with trying every rule, for
// a path in the workspace (no rule matches: every rule is tried) of the
// auto_accept_edits snapshot with a data directory.
func BenchmarkSensitiveMatch(b *testing.B) {
	ws := tempWorkspace(b)
	s := snapshotFor(b, domain.ModeAutoAcceptEdits, ws, domain.KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true})
	domain.AddSensitivePaths(s, []string{"/var/lib/turnstile"})
	v := buildFSView(&s.Sandbox.Filesystem, false)
	p := ws + "/src/pkg/Main.go"
	b.Run("indexed", func(b *testing.B) {
		for b.Loop() {
			if v.sensitiveMatch(p) {
				b.Fatal("matched")
			}
		}
	})
	b.Run("each", func(b *testing.B) {
		for b.Loop() {
			if v.sensitiveMatchEach(appendParts(nil, p)) {
				b.Fatal("matched")
			}
		}
	})
	b.Logf("%d sensitive rules", len(v.sensitive))
}
