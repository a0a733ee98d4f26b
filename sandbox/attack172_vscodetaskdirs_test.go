package sandbox

import "testing"

// TestAttack172_VSCodeTaskDirs (review 172, medium): VS Code's tasks are
// read as launcher files since review 169 (vscodetasks.go), but the
// reader takes a task's relative paths from the wrong directory in three
// forms VS Code documents, so the script a folderOpen task runs stays
// writable and the turn rewrites it for the person's next VS Code:
//
//   - ${workspaceFolder:NAME} in a NAME.code-workspace names the folder
//     of that name ("folders": [{"path": "app"}] is named app), not the
//     directory of the workspace file: the reader reads it as ".";
//   - "options" at the top of tasks.json (and in a top-level "linux")
//     apply to every task ("Options can be set per task but also globally
//     or per platform"): a global cwd was ignored;
//   - a shell task's command "cd app && ./run.sh" runs app/run.sh: the
//     words are read as if no cd had happened (the .envrc reader tracks
//     cds, this one does not).
//
// Control: the same script named from the folder (${workspaceFolder}/app)
// is kept, and another script of app stays writable in every case.
func TestAttack172_VSCodeTaskDirs(t *testing.T) {
	files := func(name, content string) map[string]string {
		return map[string]string{"repo/app/run.sh": "true\n", "repo/app/other.sh": "true\n", "repo/run.sh": "true\n", name: content}
	}
	task := func(extra string) string {
		return `{"version": "2.0.0", ` + extra + `}`
	}
	ok := launcherCase{name: "control: named from the folder", root: "repo", kept: []string{"repo/app/run.sh"}, free: "repo/app/other.sh",
		files: files("repo/.vscode/tasks.json", task(`"tasks": [{"label": "s", "type": "shell", "command": "${workspaceFolder}/app/run.sh", "runOptions": {"runOn": "folderOpen"}}]`))}
	checkLauncherCase(t, ok)
	for _, c := range []launcherCase{
		{name: "a named folder of a workspace file",
			files: files("repo/team.code-workspace", `{"folders": [{"path": "."}, {"path": "app"}], "tasks": `+
				task(`"tasks": [{"label": "s", "type": "shell", "command": "${workspaceFolder:app}/run.sh", "runOptions": {"runOn": "folderOpen"}}]`)+`}`)},
		{name: "global options.cwd",
			files: files("repo/.vscode/tasks.json", task(`"options": {"cwd": "${workspaceFolder}/app"}, "tasks": [{"label": "s", "type": "shell", "command": "./run.sh", "runOptions": {"runOn": "folderOpen"}}]`))},
		{name: "platform options.cwd",
			files: files("repo/.vscode/tasks.json", task(`"linux": {"options": {"cwd": "${workspaceFolder}/app"}}, "tasks": [{"label": "s", "type": "shell", "command": "./run.sh", "runOptions": {"runOn": "folderOpen"}}]`))},
		{name: "cd in a shell command",
			files: files("repo/.vscode/tasks.json", task(`"tasks": [{"label": "s", "type": "shell", "command": "cd app && ./run.sh", "runOptions": {"runOn": "folderOpen"}}]`))},
	} {
		c.root, c.kept, c.free = "repo", []string{"repo/app/run.sh"}, "repo/app/other.sh"
		t.Run(c.name, func(t *testing.T) { checkLauncherCase(t, c) })
	}
}
