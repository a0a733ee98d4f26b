//go:build knownlimits

package sandbox

import (
	"testing"

	"turnstile/domain"
)

// TestAttack182NodeDotSlashWholeRoot: review 182, the same name written
// "./" (`node ./`, `tsx ./`): a name with a "/" is read as a path, and the
// directory it names, the launcher file's own, the workspace itself, is
// kept read-only whole: every file of the project the person edits is
// refused to the agent (a false protection that stops ordinary work).
//
// Control: the same workspace with `node ./app` keeps app.js read-only and
// other.js writable.
func TestAttack182NodeDotSlashWholeRoot(t *testing.T) {
	for _, c := range []struct {
		envrc   string
		control bool
	}{{"node ./app\n", true}, {"node ./\n", false}} {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{
			".envrc":       c.envrc,
			"package.json": `{"name": "svc", "main": "app.js"}` + "\n",
			"app.js":       "console.log('app')\n",
			"src/other.js": "console.log('other')\n",
		})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		_, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/src/other.js", domain.AccessWrite, false)
		_, errApp := (DecisionChecker{}).ResolveFile(s, f.ws+"/app.js", domain.AccessWrite, false)
		if c.control {
			if err != nil || errApp == nil {
				t.Fatalf("control: with %q src/other.js writable=%v, app.js writable=%v", c.envrc, err == nil, errApp == nil)
			}
			continue
		}
		if err != nil {
			t.Errorf("with %q in .envrc, a write of src/other.js, a file of the project nothing runs, was refused: %v", c.envrc, err)
		}
	}
}
