package sandbox

import (
	"testing"

	"turnstile/domain"
)

// TestAttack194_EnvrcToolCheckFreezesProjectFiles: envrcBuildFiles reads
// any word of a .envrc's call whose name is a runner's as that runner
// running (it scans every word for one, so that timeout 60 make and env
// -C tools make are read). A .envrc that only checks a tool is there —
// direnv's own `has npm`, `command -v make`, `which task`, the common
// guard before use nix or a log_error — runs nothing of the project, yet
// package.json (and every package.json from the .envrc's directory up),
// the Makefile, the justfile, the Taskfile become read-only: the agent's
// ordinary work (npm install some-package writes package.json; editing
// the Makefile it was asked to fix) is refused, in every turn of that
// workspace.
// Controls: the same .envrc without the check leaves the file writable;
// one that does run the runner (npm run dev) keeps it read-only.
func TestAttack194_EnvrcToolCheckFreezesProjectFiles(t *testing.T) {
	requireKernel(t, true)
	for _, c := range []struct {
		envrc, file string
		readOnly    bool
	}{
		{envrc: "echo entering\n", file: "package.json"},
		{envrc: "npm run dev\n", file: "package.json", readOnly: true},
		{envrc: "has npm || log_error 'install node first'\n", file: "package.json"},
		{envrc: "command -v make >/dev/null || echo 'no make'\n", file: "Makefile"},
		{envrc: "if has just; then echo 'just is there'; fi\n", file: "justfile"},
		{envrc: "which task >/dev/null || log_error 'no go-task'\n", file: "Taskfile.yml"},
	} {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{".envrc": c.envrc, c.file: "{}\n"})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		allowed := writeAllowed(t, s, f.ws+"/"+c.file)
		switch {
		case c.readOnly && allowed:
			t.Fatalf("control %q: %s stayed writable", c.envrc, c.file)
		case !c.readOnly && !allowed && c.envrc == "echo entering\n":
			t.Fatalf("control %q: %s was made read-only", c.envrc, c.file)
		case !c.readOnly && !allowed:
			t.Errorf("%q runs nothing of the project, and a write of %s (ordinary work) is refused", c.envrc, c.file)
		}
	}
}
