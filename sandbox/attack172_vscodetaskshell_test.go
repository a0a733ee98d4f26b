package sandbox

import "testing"

// TestAttack172_VSCodeTaskShellAndEnv (review 172, medium): a VS Code
// task runs more than its command and args: its options.shell.executable
// is the shell VS Code starts the command with, and its options.env is
// that shell's environment (a shell task runs "bash -c COMMAND", which
// sources $BASH_ENV first). The reader (vscodeTaskScripts) reads only
// "command" and "args": the script a folderOpen task runs as its shell, or
// through BASH_ENV, stayed writable, and the turn rewrote it for the
// person's next VS Code to run.
//
// Control: the same script as the task's command is kept, and another
// script of the folder stays writable.
func TestAttack172_VSCodeTaskShellAndEnv(t *testing.T) {
	tasks := func(task string) map[string]string {
		return map[string]string{"repo/tools/sh.sh": "true\n", "repo/tools/other.sh": "true\n",
			"repo/.vscode/tasks.json": `{"version": "2.0.0", "tasks": [{"label": "s", "type": "shell", ` + task + `, "runOptions": {"runOn": "folderOpen"}}]}`}
	}
	checkLauncherCase(t, launcherCase{name: "control: the task's command", root: "repo", kept: []string{"repo/tools/sh.sh"}, free: "repo/tools/other.sh",
		files: tasks(`"command": "${workspaceFolder}/tools/sh.sh"`)})
	for _, c := range []launcherCase{
		{name: "options.shell.executable", files: tasks(`"command": "make", "options": {"shell": {"executable": "${workspaceFolder}/tools/sh.sh", "args": ["-c"]}}`)},
		{name: "options.env BASH_ENV", files: tasks(`"command": "make", "options": {"env": {"BASH_ENV": "${workspaceFolder}/tools/sh.sh"}}`)},
	} {
		c.root, c.kept, c.free = "repo", []string{"repo/tools/sh.sh"}, "repo/tools/other.sh"
		t.Run(c.name, func(t *testing.T) { checkLauncherCase(t, c) })
	}
}
