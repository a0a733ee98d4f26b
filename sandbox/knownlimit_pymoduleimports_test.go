//go:build knownlimits

package sandbox

import (
	"testing"

	"turnstile/domain"
)

// TestKnownLimitPythonModuleImports: python -m venv puts the current
// directory first on sys.path for the module's own imports too: venv
// imports shutil, and a shutil.py the agent writes beside the .envrc is
// loaded by the person's next direnv. The module's own files are kept
// (pymodule.go); what it imports is not (any name of the standard
// library could be one).
//
// Control: venv.py is refused.
func TestKnownLimitPythonModuleImports(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{".envrc": "python3 -m venv .venv\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if writeAllowed(t, s, f.ws+"/venv.py") {
		t.Fatalf("control: a write of venv.py was allowed")
	}
	if writeAllowed(t, s, f.ws+"/shutil.py") {
		t.Errorf("a write of shutil.py, which venv imports from the .envrc's directory, was allowed")
	}
}
