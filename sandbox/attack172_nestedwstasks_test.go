package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack172_NestedWorkspaceFileTasks (review 172, medium): a nested
// repository's NAME.code-workspace is kept read-only (review 18: VS Code
// offers it when the person opens the repository), and since review 169
// the tasks of a .vscode/tasks.json are read as a launcher file wherever
// .vscode is kept read-only, the nested repository's too. The workspace
// file's own "tasks" are read only at a writable root and above one
// (protectLauncherRefs' workspaceFiles(r)): the script a folderOpen task
// of vendor/lib/lib.code-workspace runs stayed writable to the file tool
// and to the command, where the same task in vendor/lib/.vscode/tasks.json
// keeps its script read-only.
//
// Control: vendor/lib/.vscode/tasks.json's script is kept, and another
// script of vendor/lib stays writable.
func TestAttack172_NestedWorkspaceFileTasks(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	lib := filepath.Join(ws, "vendor/lib")
	mustDo(t, os.MkdirAll(lib, 0o755))
	if out, err := hostGitRun(t, lib, "init", "-q"); err != nil {
		t.Fatal(out, err)
	}
	task := func(script string) string {
		return `{"version": "2.0.0", "tasks": [{"label": "w", "type": "shell", "command": "./tools/` + script + `", "runOptions": {"runOn": "folderOpen"}}]}`
	}
	mkfiles(t, lib, map[string]string{
		".vscode/tasks.json": task("fromtasks.sh"),
		"lib.code-workspace": `{"folders": [{"path": "."}], "tasks": ` + task("fromws.sh") + `}`,
		"tools/fromtasks.sh": "true\n", "tools/fromws.sh": "true\n", "tools/other.sh": "true\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	write := func(rel string) error {
		_, err := (DecisionChecker{}).ResolveFile(s, filepath.Join(lib, rel), domain.AccessWrite, false)
		return err
	}
	read := func(rel string) string { b, _ := os.ReadFile(filepath.Join(lib, rel)); return string(b) }
	r := sh(t, s, "for f in tools/other.sh tools/fromtasks.sh tools/fromws.sh; do echo pwned >> "+lib+"/$f; done; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if err := write("tools/other.sh"); err != nil || !strings.Contains(read("tools/other.sh"), "pwned") {
		t.Fatalf("control: vendor/lib/tools/other.sh is not writable (decision %v, command wrote %v)", err, strings.Contains(read("tools/other.sh"), "pwned"))
	}
	if err := write("tools/fromtasks.sh"); err == nil || strings.Contains(read("tools/fromtasks.sh"), "pwned") {
		t.Fatalf("control: the script vendor/lib/.vscode/tasks.json runs is writable (decision %v)", err)
	}
	if err := write("tools/fromws.sh"); err == nil {
		t.Errorf("a file tool's write of vendor/lib/tools/fromws.sh (run by a folderOpen task of the nested repository's lib.code-workspace) was allowed")
	}
	if strings.Contains(read("tools/fromws.sh"), "pwned") {
		t.Errorf("a command rewrote vendor/lib/tools/fromws.sh, which a folderOpen task of the nested repository's lib.code-workspace runs")
	}
}
