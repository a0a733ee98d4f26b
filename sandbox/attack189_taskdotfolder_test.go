package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack189TaskDotKeepsFolder: review 189, vscodetasks.go
// (vscodeTasksRefs). A task's word is read as a path when it holds a "/",
// or, after the first, a "." (tools.sh, app.js). The word "." itself,
// the folder, is such a word: launcherRef keeps what it names read-only,
// a directory whole. The commonest tasks of a project end in "." (`ruff
// check .`, `black .`, `npx eslint .`, `prettier --check .`, `docker
// build -t app .`): with one of them in .vscode/tasks.json, picked by the
// person, not even run as the folder opens, the whole workspace is
// read-only to the agent, its file tool's writes and its commands', and
// no ordinary edit of the project's own source can be made. (The .envrc
// reader drops "." as a bare name, keepBare; node . and python3 . keep
// the directory module's files only, dirmodule.go.)
//
// Control: the same task without the "." (`ruff check`, which checks the
// same folder) leaves src/app.py writable to both.
func TestAttack189TaskDotKeepsFolder(t *testing.T) {
	for _, cmd := range []string{"ruff check", "ruff check .", "npx eslint .", "docker build -t app ."} {
		control := !strings.HasSuffix(cmd, " .")
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{
			".vscode/tasks.json": `{"version": "2.0.0", "tasks": [{"label": "lint", "type": "shell", "command": "` + cmd + `", "problemMatcher": []}]}`,
			"src/app.py":         "print('app')\n",
		})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		if !writeAllowed(t, s, f.ws+"/src/app.py") {
			if control {
				t.Fatalf("control: with the task %q, a write of src/app.py was refused", cmd)
			}
			t.Errorf("with the task %q in .vscode/tasks.json, a file tool's write of src/app.py, the project's own source, was refused", cmd)
		}
		r := sh(t, s, "echo edited >> src/app.py; echo done")
		if !strings.Contains(string(r.Stdout), "done") {
			t.Fatalf("%s: premise: the command did not run: %d %s", cmd, r.ExitCode, r.Stderr)
		}
		if !strings.Contains(readFileOr(f.ws+"/src/app.py"), "edited") {
			if control {
				t.Fatalf("control: with the task %q, the command's edit of src/app.py failed: %s", cmd, r.Stderr)
			}
			t.Errorf("with the task %q, the command's edit of src/app.py failed: %s", cmd, strings.TrimSpace(string(r.Stderr)))
		}
	}
}
