package sandbox

import (
	"testing"

	"turnstile/domain"
)

// TestAttack141_YarnrcYMLJSONForm: JSON is YAML, and js-yaml (yarn's
// reader of .yarnrc.yml) takes a flow mapping written as compact JSON:
// {"yarnPath":".yarn/releases/yarn-4.5.0.cjs"}, the colon right after the
// quoted key. yamlTokens takes a ':' as structural only before a space
// (or, in a flow, before ",]}"), so the key is not seen and the release
// stays writable to a file tool. Control (subtest "control"): the same
// JSON with a space after the colon keeps it read-only.
func TestAttack141_YarnrcYMLJSONForm(t *testing.T) {
	rel := ".yarn/releases/yarn-4.5.0.cjs"
	for _, c := range []struct{ name, data string }{
		{"control", "{\"nodeLinker\": \"pnp\", \"yarnPath\": \".yarn/releases/yarn-4.5.0.cjs\"}\n"},
		{"compactjson", "{\"nodeLinker\":\"pnp\",\"yarnPath\":\".yarn/releases/yarn-4.5.0.cjs\"}\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{".yarnrc.yml": c.data, rel: "// yarn\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, ".yarnrc.yml", domain.AccessWrite, false); err == nil {
				t.Fatalf("premise: .yarnrc.yml itself is writable")
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err == nil {
				if c.name == "control" {
					t.Errorf("control: a write of %s was allowed", rel)
				} else {
					t.Errorf("ESCAPED (decision): a write of %s, which .yarnrc.yml %q names, was allowed", rel, c.data)
				}
			}
		})
	}
}
