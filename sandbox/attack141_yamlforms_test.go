package sandbox

import (
	"testing"

	"turnstile/domain"
)

// TestAttack141_YarnrcYMLForms: yarn (berry) reads .yarnrc.yml with
// js-yaml (FAILSAFE_SCHEMA), which takes forms the hand-written tokenizer
// of yamlrefs.go does not: a value carrying a tag (!!str) or an anchor
// (&a), an explicit key ("? yarnPath"), content on the document start
// line ("--- {yarnPath: ...}"), lines ended by a lone CR (js-yaml's
// line breaks are LF, CR LF and CR), a double-quoted value continued
// on the next line with an escaped line break. In each case yarn runs
// .yarn/releases/yarn-4.5.0.cjs for every yarn command there, and a file
// tool may still write it. Control (subtest "control"): the plain form
// keeps it read-only.
func TestAttack141_YarnrcYMLForms(t *testing.T) {
	rel := ".yarn/releases/yarn-4.5.0.cjs"
	for _, c := range []struct{ name, data string }{
		{"control", "nodeLinker: pnp\nyarnPath: .yarn/releases/yarn-4.5.0.cjs\n"},
		{"tag", "nodeLinker: pnp\nyarnPath: !!str .yarn/releases/yarn-4.5.0.cjs\n"},
		{"anchor", "nodeLinker: pnp\nyarnPath: &rel .yarn/releases/yarn-4.5.0.cjs\n"},
		{"explicitkey", "nodeLinker: pnp\n? yarnPath\n: .yarn/releases/yarn-4.5.0.cjs\n"},
		{"docstart", "--- {nodeLinker: pnp, yarnPath: .yarn/releases/yarn-4.5.0.cjs}\n"},
		{"lonecr", "nodeLinker: pnp\ryarnPath: .yarn/releases/yarn-4.5.0.cjs\r"},
		{"quotedcontinuation", "nodeLinker: pnp\nyarnPath: \".yarn/releases/\\\n  yarn-4.5.0.cjs\"\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{".yarnrc.yml": c.data, rel: "// yarn\n", ".yarn/releases/notes.txt": "n\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, ".yarnrc.yml", domain.AccessWrite, false); err == nil {
				t.Fatalf("premise: .yarnrc.yml itself is writable")
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, ".yarn/releases/notes.txt", domain.AccessWrite, false); err != nil {
				t.Fatalf("premise: the release's neighbour is writable: %v", err)
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err == nil {
				if c.name == "control" {
					t.Errorf("control: a write of %s was allowed", rel)
				} else {
					t.Errorf("ESCAPED (decision): a write of %s, which .yarnrc.yml (%s form) %q names, was allowed", rel, c.name, c.data)
				}
			}
		})
	}
}

// TestAttack141_YarnrcLoneCR: yarn 1's .yarnrc parser (its lockfile
// tokenizer) ends a line at a lone CR as at LF; lines() (bufio's
// ScanLines) does not, so a yarn-path on the second CR-ended line is not
// seen. Control (subtest "control"): the LF form keeps it read-only.
func TestAttack141_YarnrcLoneCR(t *testing.T) {
	rel := ".yarn/releases/yarn-1.22.19.cjs"
	for _, c := range []struct{ name, data string }{
		{"control", "registry \"https://registry.yarnpkg.com\"\nyarn-path \".yarn/releases/yarn-1.22.19.cjs\"\n"},
		{"lonecr", "registry \"https://registry.yarnpkg.com\"\ryarn-path \".yarn/releases/yarn-1.22.19.cjs\"\r"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{".yarnrc": c.data, rel: "// yarn\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, ".yarnrc", domain.AccessWrite, false); err == nil {
				t.Fatalf("premise: .yarnrc itself is writable")
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err == nil {
				if c.name == "control" {
					t.Errorf("control: a write of %s was allowed", rel)
				} else {
					t.Errorf("ESCAPED (decision): a write of %s, which .yarnrc (%s) names, was allowed", rel, c.name)
				}
			}
		})
	}
}
