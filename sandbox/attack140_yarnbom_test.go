package sandbox

import (
	"testing"

	"turnstile/domain"
)

// TestAttack140_YarnrcYMLByteOrderMark: a .yarnrc.yml saved with a UTF-8
// byte order mark (Windows editors write one) whose first line is
// yarnPath: js-yaml drops the mark, yarn runs the release; yarnrcYMLRefs
// reads the first key as "\ufeffyarnPath" and names nothing, so the
// release stays writable to a file tool. Control (subtest "control"): the
// same file without the mark keeps it read-only.
func TestAttack140_YarnrcYMLByteOrderMark(t *testing.T) {
	for _, bom := range []bool{false, true} {
		name := "control"
		data := "yarnPath: .yarn/releases/yarn-4.5.0.cjs\nnodeLinker: pnp\n"
		if bom {
			name, data = "bom", "\ufeff"+data
		}
		t.Run(name, func(t *testing.T) {
			f := newPlantFixture(t)
			rel := ".yarn/releases/yarn-4.5.0.cjs"
			mkfiles(t, f.ws, map[string]string{".yarnrc.yml": data, rel: "// yarn\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, ".yarnrc.yml", domain.AccessWrite, false); err == nil {
				t.Fatalf("premise: .yarnrc.yml itself is writable")
			}
			_, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false)
			if !bom && err == nil {
				t.Errorf("control: a write of %s was allowed", rel)
			}
			if bom && err == nil {
				t.Errorf("ESCAPED (decision): a write of %s, which a .yarnrc.yml with a byte order mark names, was allowed", rel)
			}
		})
	}
}
