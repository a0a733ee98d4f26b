package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack172_CwdWorkspaceFile (review 172, low/medium): the protected
// list holds at the turn's cwd inside its root (every item: the person
// launched the agent there and opens it as a folder), so a turn rooted at
// repo with its cwd at repo/app keeps repo/app/.vscode read-only, and
// since review 169 the scripts its tasks run. A VS Code workspace file
// there (repo/app/team.code-workspace, which VS Code offers when the
// person opens repo/app, with its own settings and folderOpen tasks) is
// kept read-only only at the top of a writable root or a nested
// repository (workspaceFiles): the file tool and the command rewrote it,
// adding a folderOpen task for the person's next VS Code.
//
// Control: repo/app/.vscode/tasks.json is refused, another file of
// repo/app is written, and repo/team.code-workspace (at the root) is kept.
func TestAttack172_CwdWorkspaceFile(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"app/team.code-workspace": `{"folders": [{"path": "."}]}` + "\n", "app/.vscode/tasks.json": "{}\n",
		"app/x.go": "package x\n", "top.code-workspace": "{}\n"})
	s, err := domain.SelectSnapshot(&domain.ProfileRequest{Mode: domain.ModeAutoAcceptEdits}, &domain.ProfileCatalog{Home: "/nonexistent-home"}, domain.SourceComposer,
		domain.SnapshotInputs{Cwd: ws + "/app", WorkspaceRoot: ws, Kernel: f.Kernel, RootLinks: rootLinksOf(t, ws)})
	if err != nil {
		t.Fatal(err)
	}
	write := func(rel string) error {
		_, err := (DecisionChecker{}).ResolveFile(&s, filepath.Join(ws, rel), domain.AccessWrite, false)
		return err
	}
	read := func(rel string) string { b, _ := os.ReadFile(filepath.Join(ws, rel)); return string(b) }
	r := sh(t, &s, "for f in app/x.go app/.vscode/tasks.json top.code-workspace app/team.code-workspace; do echo pwned >> "+ws+"/$f; done; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if err := write("app/x.go"); err != nil || !strings.Contains(read("app/x.go"), "pwned") {
		t.Fatalf("control: app/x.go is not writable (decision %v)", err)
	}
	for _, k := range []string{"app/.vscode/tasks.json", "top.code-workspace"} {
		if err := write(k); err == nil || strings.Contains(read(k), "pwned") {
			t.Fatalf("control: %s is writable (decision %v)", k, err)
		}
	}
	if err := write("app/team.code-workspace"); err == nil {
		t.Errorf("a file tool's write of the cwd's VS Code workspace file app/team.code-workspace was allowed (the cwd's .vscode is refused)")
	}
	if strings.Contains(read("app/team.code-workspace"), "pwned") {
		t.Errorf("a command rewrote the cwd's VS Code workspace file app/team.code-workspace (the cwd's .vscode is kept read-only)")
	}
}

// TestCwdWorkspaceFileTasks: the tasks of the cwd's workspace file are
// read as a root's are (the script a folderOpen task there runs stays
// read-only); control: another script of the cwd is written.
func TestCwdWorkspaceFileTasks(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{
		"app/team.code-workspace": `{"folders": [{"path": "."}], "tasks": {"version": "2.0.0", "tasks": [{"label": "w", "command": "./tools/open.sh", "runOptions": {"runOn": "folderOpen"}}]}}`,
		"app/tools/open.sh":       "true\n", "app/tools/other.sh": "true\n"})
	s, err := domain.SelectSnapshot(&domain.ProfileRequest{Mode: domain.ModeAutoAcceptEdits}, &domain.ProfileCatalog{Home: "/nonexistent-home"}, domain.SourceComposer,
		domain.SnapshotInputs{Cwd: ws + "/app", WorkspaceRoot: ws, Kernel: f.Kernel, RootLinks: rootLinksOf(t, ws)})
	if err != nil {
		t.Fatal(err)
	}
	write := func(rel string) error {
		_, err := (DecisionChecker{}).ResolveFile(&s, filepath.Join(ws, rel), domain.AccessWrite, false)
		return err
	}
	if err := write("app/tools/other.sh"); err != nil {
		t.Fatalf("control: %v", err)
	}
	if err := write("app/tools/open.sh"); err == nil {
		t.Errorf("a write of the script a folderOpen task of the cwd's workspace file runs was allowed")
	}
}
