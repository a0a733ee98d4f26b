package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// launcherCase is a tree, the root a turn is given (relative to the
// tree, under allowed_roots at the tree), the files a launcher file of
// the tree names (to stay read-only) and one it does not (the control).
type launcherCase struct {
	name  string
	files map[string]string
	links map[string]string
	root  string
	kept  []string
	free  string
}

// checkLauncherCase asserts that a turn rooted at c.root keeps each of
// c.kept from a file tool's write and from its command, and writes
// c.free by both.
func checkLauncherCase(t *testing.T, c launcherCase) {
	t.Helper()
	top := tempWorkspace(t)
	mkfiles(t, top, c.files)
	for l, to := range c.links {
		if err := os.Symlink(to, top+"/"+l); err != nil {
			t.Fatal(err)
		}
	}
	root := strings.TrimSuffix(top+"/"+c.root, "/")
	cat := &domain.ProfileCatalog{Home: "/nonexistent-home", Constraints: &domain.Constraints{AllowedRoots: []string{top}}}
	s, err := domain.SelectSnapshot(&domain.ProfileRequest{Mode: domain.ModeAutoAcceptEdits}, cat, domain.SourceComposer,
		domain.SnapshotInputs{Cwd: root, WorkspaceRoot: root, Kernel: machine().Kernel, RootLinks: rootLinksOf(t, root)})
	if err != nil {
		t.Fatal(err)
	}
	write := func(rel string) error {
		_, err := (DecisionChecker{}).ResolveFile(&s, top+"/"+rel, domain.AccessWrite, false)
		return err
	}
	if err := write(c.free); err != nil {
		t.Fatalf("%s: control: a write of %s was refused: %v", c.name, c.free, err)
	}
	script := "for f in"
	for _, k := range append([]string{c.free}, c.kept...) {
		script += " " + top + "/" + k
	}
	r := sh(t, &s, script+"; do echo pwned >> $f; done; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("%s: premise: the command did not run: %d %s", c.name, r.ExitCode, r.Stderr)
	}
	read := func(rel string) string { b, _ := os.ReadFile(top + "/" + rel); return string(b) }
	if !strings.Contains(read(c.free), "pwned") {
		t.Fatalf("%s: control: the command did not write %s", c.name, c.free)
	}
	for _, k := range c.kept {
		if err := write(k); err == nil {
			t.Errorf("%s: a file tool's write of %s (which a launcher file names) was allowed to a turn rooted at %s", c.name, k, c.root)
		}
		if strings.Contains(read(k), "pwned") {
			t.Errorf("%s: a command of a turn rooted at %s rewrote %s, which a launcher file names", c.name, c.root, k)
		}
	}
}

// TestAttack169_VSCodeTasksFolderOpen (review 169, medium/high): VS Code
// runs a task with runOptions.runOn "folderOpen" as the person opens the
// folder, and the others when picked. .vscode (and a NAME.code-workspace)
// are read-only, but the scripts their tasks run were left writable: the
// turn rewrote them for the person's next VS Code to run. At a root, above
// one (a turn rooted at repo/sub under allowed_roots) and in a workspace
// file; the tasks file with comments and trailing commas (JSONC), a
// task's cwd, a process task's args and a bare name in a shell command.
func TestAttack169_VSCodeTasksFolderOpen(t *testing.T) {
	tasks := `{
  // VS Code reads JSONC
  "version": "2.0.0",
  "tasks": [
    {"label": "setup", "type": "shell", "command": "${workspaceFolder}/sub/scripts/setup.sh", "runOptions": {"runOn": "folderOpen"}},
    {"label": "boot", "type": "process", "command": "bash", "args": ["tools/boot.sh"], "options": {"cwd": "${workspaceFolder}/sub"}},
    {"label": "bare", "command": "sh bootstrap", "linux": {"command": "./sub/linux.sh"},}, /* trailing comma */
  ],
}`
	files := map[string]string{
		"repo/.vscode/tasks.json":   tasks,
		"repo/sub/scripts/setup.sh": "true\n",
		"repo/sub/scripts/other.sh": "true\n",
		"repo/sub/tools/boot.sh":    "true\n",
		"repo/sub/bootstrap":        "true\n",
		"repo/sub/linux.sh":         "true\n",
		"repo/bootstrap":            "true\n",
		"repo/team.code-workspace":  `{"folders": [{"path": "."}], "tasks": {"version": "2.0.0", "tasks": [{"label": "w", "command": "./sub/ws.sh", "runOptions": {"runOn": "folderOpen"}}]}}`,
		"repo/sub/ws.sh":            "true\n",
	}
	all := []string{"repo/sub/scripts/setup.sh", "repo/sub/tools/boot.sh", "repo/sub/linux.sh", "repo/sub/ws.sh"}
	checkLauncherCase(t, launcherCase{name: "at the root", files: files, root: "repo",
		kept: append(all, "repo/bootstrap"), free: "repo/sub/scripts/other.sh"})
	checkLauncherCase(t, launcherCase{name: "above the root", files: files, root: "repo/sub",
		kept: all, free: "repo/sub/scripts/other.sh"})
}

// TestAttack169_LaunchersAboveRootLinkedAndMiseExtras (review 169): above
// a root, a launcher file given as a symlink (repo/.envrc ->
// dotfiles/envrc: direnv reads where it leads) was skipped, and mise's
// conf.d and environment configs were read at the roots only.
func TestAttack169_LaunchersAboveRootLinkedAndMiseExtras(t *testing.T) {
	checkLauncherCase(t, launcherCase{name: "linked .envrc", root: "repo/sub",
		files: map[string]string{"dotfiles/envrc": "source sub/env.sh\n", "repo/sub/env.sh": "true\n", "repo/sub/other.sh": "true\n"},
		links: map[string]string{"repo/.envrc": "../dotfiles/envrc"},
		kept:  []string{"repo/sub/env.sh"}, free: "repo/sub/other.sh"})
	checkLauncherCase(t, launcherCase{name: "mise conf.d and mise.dev.toml", root: "repo/sub",
		files: map[string]string{
			"repo/.config/mise/conf.d/hooks.toml": "[hooks]\nenter = \"bash ./sub/enter.sh\"\n",
			"repo/mise.dev.toml":                  "[env]\n_.source = \"sub/dev.sh\"\n",
			"repo/sub/enter.sh":                   "true\n", "repo/sub/dev.sh": "true\n", "repo/sub/other.sh": "true\n"},
		kept: []string{"repo/sub/enter.sh", "repo/sub/dev.sh"}, free: "repo/sub/other.sh"})
}

// TestDevcontainerLifecycleScripts: a dev container's definition is
// read-only (.devcontainer, .devcontainer.json), and the scripts its
// lifecycle commands run are kept read-only too: initializeCommand runs on
// the host as the person reopens the folder in its container (VS Code
// offers it as the folder opens), the others in the container over the
// folder. A string, a list and an object of commands; at the root and
// above it; a definition in .devcontainer/NAME/.
func TestDevcontainerLifecycleScripts(t *testing.T) {
	files := map[string]string{
		"repo/.devcontainer/devcontainer.json": `{
  // JSONC
  "image": "debian",
  "initializeCommand": "bash ${localWorkspaceFolder}/sub/init.sh",
  "postCreateCommand": ["sh", "sub/post.sh"],
  "postStartCommand": {"a": "./sub/start.sh", "b": ["node", "sub/b.js"]},
}`,
		"repo/.devcontainer/gpu/devcontainer.json": `{"onCreateCommand": "sub/gpu.sh"}`,
		"repo/sub/init.sh":                         "true\n", "repo/sub/post.sh": "true\n", "repo/sub/start.sh": "true\n",
		"repo/sub/b.js": "1\n", "repo/sub/gpu.sh": "true\n", "repo/sub/other.sh": "true\n",
	}
	kept := []string{"repo/sub/init.sh", "repo/sub/post.sh", "repo/sub/start.sh", "repo/sub/b.js", "repo/sub/gpu.sh"}
	checkLauncherCase(t, launcherCase{name: "at the root", files: files, root: "repo", kept: kept, free: "repo/sub/other.sh"})
	checkLauncherCase(t, launcherCase{name: "above the root", files: files, root: "repo/sub", kept: kept, free: "repo/sub/other.sh"})
	files[".devcontainer.json"] = `{"initializeCommand": "./repo/sub/top.sh"}`
	files["repo/sub/top.sh"] = "true\n"
	checkLauncherCase(t, launcherCase{name: ".devcontainer.json above", files: files, root: "repo/sub", kept: []string{"repo/sub/top.sh"}, free: "repo/sub/other.sh"})
}
