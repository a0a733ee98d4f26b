package sandbox

import "testing"

// TestAttack175_VSCodeSettingsTaskEnv (hundred-and-seventy-fifth
// review): review 172 reads a task's options.env (BASH_ENV, which bash -c
// sources before the task's command) and the automation profile's path
// from .vscode/settings.json, but not the variables settings.json gives
// the same task's shell: terminal.integrated.env.linux (applied to every
// terminal VS Code makes, a task's included) and the automation
// profile's own "env" (the profile tasks run in). A folderOpen task
// ("echo ready") runs bash -c with BASH_ENV=tools/env.sh as the person
// opens the folder, and tools/env.sh stays writable to the turn.
//
// Control: the same variable given as the task's options.env keeps the
// script; another script stays writable.
func TestAttack175_VSCodeSettingsTaskEnv(t *testing.T) {
	const task = `{"version": "2.0.0", "tasks": [{"label": "ready", "type": "shell", "command": "echo ready", "runOptions": {"runOn": "folderOpen"}}]}`
	files := func(more map[string]string) map[string]string {
		m := map[string]string{"repo/tools/env.sh": "true\n", "repo/tools/other.sh": "true\n"}
		for k, v := range more {
			m[k] = v
		}
		return m
	}
	checkLauncherCase(t, launcherCase{name: "control: the task's options.env", root: "repo", kept: []string{"repo/tools/env.sh"}, free: "repo/tools/other.sh",
		files: files(map[string]string{"repo/.vscode/tasks.json": `{"version": "2.0.0", "tasks": [{"label": "ready", "type": "shell", "command": "echo ready", "options": {"env": {"BASH_ENV": "${workspaceFolder}/tools/env.sh"}}, "runOptions": {"runOn": "folderOpen"}}]}`})})
	checkLauncherCase(t, launcherCase{name: "settings.json terminal.integrated.env.linux", root: "repo", kept: []string{"repo/tools/env.sh"}, free: "repo/tools/other.sh",
		files: files(map[string]string{"repo/.vscode/tasks.json": task,
			"repo/.vscode/settings.json": `{"terminal.integrated.env.linux": {"BASH_ENV": "${workspaceFolder}/tools/env.sh"}}`})})
	checkLauncherCase(t, launcherCase{name: "settings.json automation profile's env", root: "repo", kept: []string{"repo/tools/env.sh"}, free: "repo/tools/other.sh",
		files: files(map[string]string{"repo/.vscode/tasks.json": task,
			"repo/.vscode/settings.json": `{"terminal.integrated.automationProfile.linux": {"path": "/bin/bash", "env": {"BASH_ENV": "${workspaceFolder}/tools/env.sh"}}}`})})
}
