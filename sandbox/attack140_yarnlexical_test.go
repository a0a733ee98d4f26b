package sandbox

import (
	"os"
	"testing"

	"turnstile/domain"
)

// TestAttack140_YarnPathDotDotLexical: launcherRef takes a ".." in what a
// launcher file names the kernel's way (dotDotWay, written for git, whose
// paths the kernel resolves: link/.. is the parent of the link's
// target). Yarn does not: it resolves yarnPath with ppath.resolve, which
// removes "tools/.." lexically, and node then loads
// <ws>/.yarn/releases/yarn-4.5.0.cjs. With tools a symlink (here to
// vendor/bin), the path kept read-only is vendor/.yarn/releases/... and
// the release yarn runs stays writable to a file tool. Control (subtest
// "control"): with tools a directory, the two ways agree and the release
// is refused.
func TestAttack140_YarnPathDotDotLexical(t *testing.T) {
	for _, link := range []bool{false, true} {
		name := "control"
		if link {
			name = "tools-is-a-symlink"
		}
		t.Run(name, func(t *testing.T) {
			f := newPlantFixture(t)
			rel := ".yarn/releases/yarn-4.5.0.cjs"
			mkfiles(t, f.ws, map[string]string{".yarnrc.yml": "yarnPath: tools/../" + rel + "\n", rel: "// yarn\n", "vendor/bin/x": "x\n", "vendor/" + rel: "// other\n"})
			if link {
				mustDo(t, os.Symlink("vendor/bin", f.ws+"/tools"))
			} else {
				mustDo(t, os.Mkdir(f.ws+"/tools", 0o755))
			}
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			_, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false)
			if !link && err == nil {
				t.Errorf("control: a write of %s, which .yarnrc.yml's yarnPath names, was allowed", rel)
			}
			if link && err == nil {
				t.Errorf("ESCAPED (decision): a write of %s, the release yarn resolves tools/../%s to, was allowed", rel, rel)
			}
		})
	}
}
