package sandbox

import "testing"

// TestAttack172_VSCodeTasksBOM (review 172, low/medium): a tasks.json
// saved "UTF-8 with BOM" (VS Code keeps a file's encoding, and editors on
// Windows write one) is read by VS Code as any other: its JSON parser
// takes U+FEFF for a blank, and its folderOpen task runs. The reader
// (vscodeTaskScripts) hands the bytes to encoding/json, which refuses a
// leading BOM: the file was read as holding no task, and the script its
// folderOpen task runs stayed writable to the command and the file tool.
//
// Control: the same file without the BOM keeps the script, and another
// script stays writable.
func TestAttack172_VSCodeTasksBOM(t *testing.T) {
	const tasks = `{"version": "2.0.0", "tasks": [{"label": "s", "type": "shell", "command": "${workspaceFolder}/tools/setup.sh", "runOptions": {"runOn": "folderOpen"}}]}`
	for _, c := range []struct{ name, bom string }{{"control: no BOM", ""}, {"a BOM", "\ufeff"}} {
		t.Run(c.name, func(t *testing.T) {
			checkLauncherCase(t, launcherCase{name: c.name, root: "repo", kept: []string{"repo/tools/setup.sh"}, free: "repo/tools/other.sh",
				files: map[string]string{"repo/.vscode/tasks.json": c.bom + tasks, "repo/tools/setup.sh": "true\n", "repo/tools/other.sh": "true\n"}})
		})
	}
}
