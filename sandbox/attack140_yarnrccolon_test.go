package sandbox

import (
	"testing"

	"turnstile/domain"
)

// TestAttack140_YarnrcColonForm: yarn 1's .yarnrc takes "key value" and
// "key: value" alike (its lockfile parser skips a colon after a key, and
// falls back to YAML when its own syntax fails), so `yarn-path:
// .yarn/releases/yarn-1.22.19.cjs` names the script node runs for every
// yarn 1 command there. keyedLineRefs cuts the line at its first space
// and compares "yarn-path:" with "yarn-path": the script stays writable
// to a file tool. Control (TestAttack140_YarnrcColonFormControl): the
// form without a colon is refused.
func TestAttack140_YarnrcColonForm(t *testing.T) {
	for _, data := range []string{
		"yarn-path: \".yarn/releases/yarn-1.22.19.cjs\"\n",
		"yarn-path: .yarn/releases/yarn-1.22.19.cjs\n",
	} {
		f := newPlantFixture(t)
		rel := ".yarn/releases/yarn-1.22.19.cjs"
		mkfiles(t, f.ws, map[string]string{".yarnrc": data, rel: "// yarn\n"})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if _, err := (DecisionChecker{}).ResolveFile(s, ".yarnrc", domain.AccessWrite, false); err == nil {
			t.Fatalf("premise: .yarnrc itself is writable")
		}
		if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err == nil {
			t.Errorf("ESCAPED (decision): a write of %s, which .yarnrc %q names, was allowed", rel, data)
		}
	}
}

func TestAttack140_YarnrcColonFormControl(t *testing.T) {
	f := newPlantFixture(t)
	rel := ".yarn/releases/yarn-1.22.19.cjs"
	mkfiles(t, f.ws, map[string]string{".yarnrc": "yarn-path \".yarn/releases/yarn-1.22.19.cjs\"\n", rel: "// yarn\n", ".yarn/releases/notes.txt": "n\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err == nil {
		t.Errorf("control: a write of %s, named without a colon, was allowed", rel)
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, ".yarn/releases/notes.txt", domain.AccessWrite, false); err != nil {
		t.Errorf("control: a write of the release's neighbour: %v", err)
	}
}
