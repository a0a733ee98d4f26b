package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// caseVariants141 returns n distinct spellings of name differing only in
// the case of its letters.
func caseVariants141(name string, n int) []string {
	var letters []int
	for i, c := range name {
		if 'a' <= c && c <= 'z' {
			letters = append(letters, i)
		}
	}
	var out []string
	for m := 0; m < n && m < 1<<len(letters); m++ {
		b := []byte(name)
		for k, i := range letters {
			if m&(1<<k) != 0 {
				b[i] -= 'a' - 'A'
			}
		}
		out = append(out, string(b))
	}
	return out
}

// TestAttack141_WalkLauncherCap: the discovery walk keeps at most
// maxWalkLaunchers (4096) launcher files, silently: no bound is reported.
// A file tool makes, in a directory of its own (decoy/, listed by the
// breadth-first walk before pkg/app/), 4096 empty files named by case
// variants of ".mise.local.toml" (launcherName and launcherItem fold
// case; a file tool's write of them is allowed there: a sample is
// decided). The next walk keeps those and drops
// the person's pkg/app/.yarnrc.yml, so the release its yarnPath names is
// no longer kept read-only to a command: its write is kept (the decision
// may still refuse a file tool's, by the walk cache's age). Control (subtest "control"): without the decoys the release
// is refused to both.
func TestAttack141_WalkLauncherCap(t *testing.T) {
	rel := "pkg/app/.yarn/releases/yarn-4.5.0.cjs"
	for _, decoys := range []bool{false, true} {
		name := "control"
		if decoys {
			name = "decoys"
		}
		t.Run(name, func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{"pkg/app/.yarnrc.yml": "yarnPath: .yarn/releases/yarn-4.5.0.cjs\n", rel: "// yarn\n", "decoy/": ""})
			forgetWalks()
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if decoys {
				// What a file tool may write (each one decided), made
				// as it would.
				names := caseVariants141(".mise.local.toml", maxWalkLaunchers)
				for i, n := range names {
					if i%512 != 0 {
						mkfiles(t, f.ws, map[string]string{"decoy/" + n: ""})
						continue
					}
					if _, err := (DecisionChecker{}).ResolveFile(s, "decoy/"+n, domain.AccessWrite, false); err != nil {
						// Since mise's configs are kept at any depth
						// (review 144) a file tool's write is refused; a
						// command's, in an earlier second, is the way left.
						t.Logf("a write of decoy/%s: %v", n, err)
					}
					mkfiles(t, f.ws, map[string]string{"decoy/" + n: ""})
				}
			} else {
				mkfiles(t, f.ws, map[string]string{"decoy/notes.txt": ""})
			}
			forgetWalks()
			s = snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, "pkg/app/.yarnrc.yml", domain.AccessWrite, false); err == nil {
				t.Fatalf("premise: pkg/app/.yarnrc.yml itself is writable")
			}
			_, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false)
			if err == nil {
				if decoys {
					// Not asserted: whether the decision's view is the
					// one walked with the decoys depends on the walk
					// cache's age.
					t.Logf("ESCAPED (decision) too: a write of %s, which pkg/app/.yarnrc.yml names, was allowed after 4096 decoy launcher names", rel)
				} else {
					t.Errorf("control: a write of %s was allowed", rel)
				}
			}
			r := sh(t, s, "echo planted-a141 >> "+rel)
			if strings.Contains(readFileOr(f.ws+"/"+rel), "planted-a141") {
				if decoys {
					t.Errorf("ESCAPED (command): %s holds the command's bytes (exit %d, set aside %v)", rel, r.ExitCode, r.Quarantined)
				} else {
					t.Errorf("control: %s holds the command's bytes", rel)
				}
			}
		})
	}
}
