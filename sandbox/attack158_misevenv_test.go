package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack158_MisePythonVenvPath (review 158, medium: host code
// execution at the person's next prompt in the project, with mise
// activated). mise's `[env] _.python.venv = ".venv"` (or `{ path =
// ".venv", create = true }`) activates that virtualenv whenever the person's
// shell is in the project: its bin directory goes first in PATH, exactly
// as `_.path` puts a directory there. miseRefs (launcherparse.go) reads
// `_.source`, `_.file` and `_.path` only, so `.venv/bin` is neither kept
// read-only nor watched: a command writes `.venv/bin/ls` (or git, make,
// python), it stays, and the person's next `ls` in the project runs it.
// The README names direnv's `layout` as not covered; mise's venv is not
// named, and `_.path` (the same effect) is covered.
//
// Control: `_.path = ["tools/bin"]` in the same config keeps tools/bin
// read-only (a write decision on tools/bin/ls is refused and the
// command's write fails).
func TestAttack158_MisePythonVenvPath(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		"mise.toml":          "[env]\n_.path = [\"tools/bin\"]\n_.python.venv = { path = \".venv\", create = true }\n",
		"tools/bin/fmt":      "#!/bin/sh\n",
		".venv/bin/activate": "# venv\n",
		".venv/pyvenv.cfg":   "home = /usr/bin\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/tools/bin/ls", domain.AccessWrite, false); err == nil {
		t.Fatalf("control: a write of tools/bin/ls, in a directory mise's _.path puts in PATH, was allowed")
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/.venv/bin/ls", domain.AccessWrite, false); err == nil {
		t.Errorf("a file tool's write of .venv/bin/ls, in the directory mise's _.python.venv puts first in PATH, was allowed")
	}
	r := sh(t, s, "printf '#!/bin/sh\\ntouch /tmp/pwned\\n' > tools/bin/ls; printf '#!/bin/sh\\ntouch /tmp/pwned\\n' > .venv/bin/ls && chmod +x .venv/bin/ls; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if exists(f.ws + "/tools/bin/ls") {
		t.Fatalf("control: tools/bin/ls, made by the command in mise's _.path, stayed (quarantined: %+v)", r.Quarantined)
	}
	if exists(f.ws + "/.venv/bin/ls") {
		t.Errorf(".venv/bin/ls, made by the command in the virtualenv mise activates, stayed after the check: the person's next ls in the project runs it")
	}
}
