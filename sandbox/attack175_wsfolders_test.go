package sandbox

import "testing"

// TestAttack175_WorkspaceFileFolderTasks (hundred-and-seventy-fifth
// review): a NAME.code-workspace at a root is kept read-only and its own
// "tasks" are read (reviews 169, 172), but the folders it names are not:
// VS Code, opening the workspace file, opens each folder it lists
// ("folders": [{"path": "app"}]) and reads that folder's
// .vscode/tasks.json and .vscode/settings.json as it reads a root's, a
// folderOpen task there running as the workspace opens. repo/app/.vscode
// is kept nowhere (the list is held at the roots, the cwd and the tops of
// nested repositories), so a turn rooted at repo rewrites the tasks the
// person's workspace runs when next opened.
//
// Control: the same tasks at the root's own .vscode are kept; another
// file of app stays writable.
func TestAttack175_WorkspaceFileFolderTasks(t *testing.T) {
	const tasks = `{"version": "2.0.0", "tasks": [{"label": "watch", "type": "shell", "command": "npm run watch", "runOptions": {"runOn": "folderOpen"}}]}`
	ws := `{"folders": [{"path": "app"}, {"path": "lib"}], "settings": {}}`
	checkLauncherCase(t, launcherCase{name: "control: the root's .vscode/tasks.json", root: "repo", kept: []string{"repo/.vscode/tasks.json"}, free: "repo/app/main.js",
		files: map[string]string{"repo/team.code-workspace": ws, "repo/.vscode/tasks.json": tasks, "repo/app/main.js": "x\n", "repo/lib/x.js": "x\n"}})
	checkLauncherCase(t, launcherCase{name: "a folder the workspace file names: app/.vscode/tasks.json", root: "repo",
		kept: []string{"repo/app/.vscode/tasks.json", "repo/app/.vscode/settings.json"}, free: "repo/app/main.js",
		files: map[string]string{"repo/team.code-workspace": ws, "repo/app/.vscode/tasks.json": tasks, "repo/app/.vscode/settings.json": "{}\n", "repo/app/main.js": "x\n", "repo/lib/x.js": "x\n"}})
}
