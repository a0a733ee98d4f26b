package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack189TaskDotKeepsFolder: review 189, vscodetasks.go
// (vscodeTasksRefs, and the word-by-word reading of mise's hooks and a dev
// container's commands it shares). A command's word is read as a path
// when it holds a "/", or, after the first, a "." (tools.sh, app.js). The
// word "." itself, the folder, is such a word: launcherRef keeps what it
// names read-only, a directory whole. The commonest commands of a project
// end in "." (`ruff check .`, `npx eslint .`, `docker build -t app .`, a
// dev container's `pip install -e .`): with one of them in
// .vscode/tasks.json (a task the person picks, not even one run as the
// folder opens), .devcontainer/devcontainer.json or a mise hook, the whole
// workspace is read-only to the agent, its file tool's writes and its
// commands', and no ordinary edit of the project's own source can be
// made. (The .envrc reader drops "." as a bare name, keepBare; node . and
// python3 . keep the directory module's files only, dirmodule.go.)
//
// Control: the same files with a command without the "." (`ruff check`,
// which checks the same folder; `pip install -r requirements.txt`) leave
// src/app.py writable to both.
func TestAttack189TaskDotKeepsFolder(t *testing.T) {
	task := func(cmd string) string {
		return `{"version": "2.0.0", "tasks": [{"label": "lint", "type": "shell", "command": "` + cmd + `", "problemMatcher": []}]}`
	}
	for _, c := range []struct {
		file, content string
		control       bool
	}{
		{".vscode/tasks.json", task("ruff check"), true},
		{".devcontainer/devcontainer.json", `{"image": "mcr.microsoft.com/devcontainers/python:3.12", "postCreateCommand": "pip install -r requirements.txt"}`, true},
		{".vscode/tasks.json", task("ruff check ."), false},
		{".vscode/tasks.json", task("npx eslint ."), false},
		{".vscode/tasks.json", task("docker build -t app ."), false},
		{".devcontainer/devcontainer.json", `{"image": "mcr.microsoft.com/devcontainers/python:3.12", "postCreateCommand": "pip install -e ."}`, false},
		{"mise.toml", "[hooks]\nenter = \"ruff check .\"\n", false},
	} {
		f := newPlantFixture(t)
		mkfiles(t, f.ws, map[string]string{c.file: c.content, "src/app.py": "print('app')\n"})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		what := c.file + " " + c.content
		if !writeAllowed(t, s, f.ws+"/src/app.py") {
			if c.control {
				t.Fatalf("control: with %s, a write of src/app.py was refused", what)
			}
			t.Errorf("with %s, a file tool's write of src/app.py, the project's own source, was refused", what)
		}
		r := sh(t, s, "echo edited >> src/app.py; echo done")
		if !strings.Contains(string(r.Stdout), "done") {
			t.Fatalf("%s: premise: the command did not run: %d %s", what, r.ExitCode, r.Stderr)
		}
		if !strings.Contains(readFileOr(f.ws+"/src/app.py"), "edited") {
			if c.control {
				t.Fatalf("control: with %s, the command's edit of src/app.py failed: %s", what, r.Stderr)
			}
			t.Errorf("with %s, the command's edit of src/app.py failed: %s", what, strings.TrimSpace(string(r.Stderr)))
		}
	}
}
