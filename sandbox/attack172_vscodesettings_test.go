package sandbox

import "testing"

// TestAttack172_VSCodeSettingsInterpreter (review 172, low/medium):
// .vscode/settings.json is kept read-only with .vscode, but what it names
// for VS Code to run is not read. python.defaultInterpreterPath is the
// interpreter the Python extension runs as the folder opens (it starts it
// to learn its version and environment when no interpreter is selected
// yet: no action of the person's beyond opening the trusted folder), so
// a wrapper script it names in the project (tools/python) was left
// writable and the turn rewrote it. Review 169 reads tasks.json's scripts
// for the same reason (a folderOpen task).
//
// Control: the same script named by a task's command is kept, and another
// script stays writable.
func TestAttack172_VSCodeSettingsInterpreter(t *testing.T) {
	files := func(name, content string) map[string]string {
		return map[string]string{"repo/tools/python": "#!/bin/sh\nexec python3 \"$@\"\n", "repo/tools/other.sh": "true\n", name: content}
	}
	checkLauncherCase(t, launcherCase{name: "control: a task's command", root: "repo", kept: []string{"repo/tools/python"}, free: "repo/tools/other.sh",
		files: files("repo/.vscode/tasks.json", `{"version": "2.0.0", "tasks": [{"label": "s", "command": "${workspaceFolder}/tools/python", "runOptions": {"runOn": "folderOpen"}}]}`)})
	checkLauncherCase(t, launcherCase{name: "settings.json python.defaultInterpreterPath", root: "repo", kept: []string{"repo/tools/python"}, free: "repo/tools/other.sh",
		files: files("repo/.vscode/settings.json", `{"python.defaultInterpreterPath": "${workspaceFolder}/tools/python"}`)})
}
