package sandbox

import "testing"

// TestAttack175_VSCodeTaskShellArgs (hundred-and-seventy-fifth review):
// review 172 reads a task's shell executable (options.shell.executable)
// and the automation profile's path, not their arguments. VS Code runs a
// shell task as EXECUTABLE ARGS... COMMAND, the args given replacing its
// default "-c": with {"executable": "bash", "args": ["tools/wrap.sh"]}
// (or the automation profile {"path": "bash", "args":
// ["tools/wrap.sh"]} in settings.json) the folderOpen task "echo ready"
// runs bash tools/wrap.sh 'echo ready', and tools/wrap.sh stays
// writable to the turn.
//
// Control: the same script given as the shell's executable is kept;
// another script stays writable.
func TestAttack175_VSCodeTaskShellArgs(t *testing.T) {
	files := func(name, content string) map[string]string {
		return map[string]string{"repo/tools/wrap.sh": "#!/bin/sh\nexec \"$@\"\n", "repo/tools/other.sh": "true\n", name: content,
			"repo/.vscode/tasks.json": `{"version": "2.0.0", "tasks": [{"label": "ready", "type": "shell", "command": "echo ready", "runOptions": {"runOn": "folderOpen"}}]}`}
	}
	checkLauncherCase(t, launcherCase{name: "control: the shell's executable", root: "repo", kept: []string{"repo/tools/wrap.sh"}, free: "repo/tools/other.sh",
		files: files("repo/.vscode/tasks.json", `{"version": "2.0.0", "tasks": [{"label": "ready", "type": "shell", "command": "echo ready", "options": {"shell": {"executable": "${workspaceFolder}/tools/wrap.sh"}}, "runOptions": {"runOn": "folderOpen"}}]}`)})
	checkLauncherCase(t, launcherCase{name: "a task's shell args", root: "repo", kept: []string{"repo/tools/wrap.sh"}, free: "repo/tools/other.sh",
		files: files("repo/.vscode/tasks.json", `{"version": "2.0.0", "tasks": [{"label": "ready", "type": "shell", "command": "echo ready", "options": {"shell": {"executable": "bash", "args": ["${workspaceFolder}/tools/wrap.sh"]}}, "runOptions": {"runOn": "folderOpen"}}]}`)})
	checkLauncherCase(t, launcherCase{name: "settings.json automation profile's args", root: "repo", kept: []string{"repo/tools/wrap.sh"}, free: "repo/tools/other.sh",
		files: files("repo/.vscode/settings.json", `{"terminal.integrated.automationProfile.linux": {"path": "bash", "args": ["${workspaceFolder}/tools/wrap.sh"]}}`)})
}
