package sandbox

import (
	"context"
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// rootLinksOf is where each root leads, as the engine records it when a
// turn starts (engine.checkRoots: every root, the link's target where it
// is one).
func rootLinksOf(t *testing.T, roots ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, r := range roots {
		c, err := (DecisionChecker{}).ResolveRoot(r)
		if err != nil {
			t.Fatalf("resolve %s: %v", r, err)
		}
		out[r] = c
	}
	return out
}

// TestAttack169_RootViaLinkAtProtectedItem (review 169, high): a turn
// rooted at a project's .vscode keeps it read-only (aboveRootEntries: the
// protected list holds at each directory between a root and its allowed
// root). Rooted at the same directory through a symlink (top/lnk ->
// repo/.vscode: one the runtime names, or one the agent planted in the
// project for a later turn), the list was looked up above the link's own
// path, where nothing is protected, and the kernel granted write where the
// link led: the command rewrote .vscode/tasks.json, which VS Code runs on
// folderOpen.
//
// Control: a root through a link to repo/src writes there.
func TestAttack169_RootViaLinkAtProtectedItem(t *testing.T) {
	top := tempWorkspace(t)
	repo := top + "/repo"
	mkfiles(t, repo, map[string]string{".vscode/tasks.json": "{}\n", "src/x.go": "package x\n"})
	for l, to := range map[string]string{"/lnk": repo + "/.vscode", "/srclnk": repo + "/src", "/repo/lv": ".vscode"} {
		if err := os.Symlink(to, top+l); err != nil {
			t.Fatal(err)
		}
	}
	cat := &domain.ProfileCatalog{Home: "/nonexistent-home", Constraints: &domain.Constraints{AllowedRoots: []string{top}}}
	snap := func(root string) *domain.TurnExecutionSecuritySnapshot {
		t.Helper()
		s, err := domain.SelectSnapshot(&domain.ProfileRequest{Mode: domain.ModeAutoAcceptEdits}, cat, domain.SourceComposer,
			domain.SnapshotInputs{Cwd: root, WorkspaceRoot: root, Kernel: machine().Kernel, RootLinks: rootLinksOf(t, root)})
		if err != nil {
			t.Fatalf("snapshot at %s: %v", root, err)
		}
		return &s
	}
	run := func(s *domain.TurnExecutionSecuritySnapshot, dir, file string) {
		t.Helper()
		r := sh(t, s, "cd "+dir+" && echo pwned >> "+file+"; echo done")
		if !strings.Contains(string(r.Stdout), "done") {
			t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
		}
	}
	read := func(rel string) string { b, _ := os.ReadFile(repo + "/" + rel); return string(b) }

	ctl := snap(top + "/srclnk")
	if _, err := (DecisionChecker{}).ResolveFile(ctl, top+"/srclnk/x.go", domain.AccessWrite, false); err != nil {
		t.Fatalf("control: a turn rooted at a link to repo/src may not write x.go there: %v", err)
	}
	run(ctl, top+"/srclnk", "x.go")
	if !strings.Contains(read("src/x.go"), "pwned") {
		t.Fatalf("control: a command of a turn rooted at a link to repo/src did not write x.go")
	}
	if direct := snap(repo + "/.vscode"); true {
		run(direct, repo+"/.vscode", "tasks.json")
		if strings.Contains(read(".vscode/tasks.json"), "pwned") {
			t.Fatalf("control: a turn rooted at repo/.vscode itself rewrote tasks.json")
		}
	}
	for _, root := range []string{top + "/lnk", repo + "/lv"} {
		s := snap(root)
		if _, err := (DecisionChecker{}).ResolveFile(s, root+"/tasks.json", domain.AccessWrite, false); err == nil {
			t.Errorf("a file tool's write of %s/tasks.json (repo/.vscode/tasks.json) was allowed to a turn rooted there", root)
		}
		run(s, root, "tasks.json")
		if got := read(".vscode/tasks.json"); strings.Contains(got, "pwned") {
			t.Errorf("a command of a turn rooted at %s (a link to repo/.vscode) rewrote repo/.vscode/tasks.json: %q", root, got)
			mkfiles(t, repo, map[string]string{".vscode/tasks.json": "{}\n"})
		}
	}
}

// TestAttack169_ChildRootViaLinkAtProtectedItem (review 169, high): the
// same through a child turn: its parent, rooted at repo, keeps
// repo/.vscode read-only; a child rooted at repo/lv (a link to .vscode the
// agent planted) must not write it. A parent bound where its root led (as
// every turn the engine starts is) binds the child's root at its written
// path, where the kernel finds a link and grants nothing; one bound
// nowhere (led_to missing) left the child bound where its own link led,
// and the parent's .vscode, above the child's written root, was dropped.
// Control: a child rooted at repo/src writes there, and under the unbound
// parent so does one rooted at repo/ls (a link to src).
func TestAttack169_ChildRootViaLinkAtProtectedItem(t *testing.T) {
	repo := tempWorkspace(t)
	mkfiles(t, repo, map[string]string{".vscode/tasks.json": "{}\n", "src/x.go": "package x\n"})
	for l, to := range map[string]string{"/lv": ".vscode", "/ls": "src"} {
		if err := os.Symlink(to, repo+l); err != nil {
			t.Fatal(err)
		}
	}
	read := func(rel string) string { b, _ := os.ReadFile(repo + "/" + rel); return string(b) }
	for _, parentLinks := range []map[string]string{rootLinksOf(t, repo), nil} {
		ps, err := domain.SelectSnapshot(&domain.ProfileRequest{Mode: domain.ModeAutoAcceptEdits}, &domain.ProfileCatalog{Home: "/nonexistent-home"},
			domain.SourceComposer, domain.SnapshotInputs{Cwd: repo, WorkspaceRoot: repo, Kernel: machine().Kernel, RootLinks: parentLinks})
		if err != nil {
			t.Fatal(err)
		}
		child := func(root string) *domain.TurnExecutionSecuritySnapshot {
			t.Helper()
			cs, err := domain.ResolveChildSnapshot(domain.ChildInputs{Parent: &ps, ParentTurnID: "parent",
				Inputs: domain.SnapshotInputs{Cwd: root, WorkspaceRoot: root, Kernel: machine().Kernel, RootLinks: rootLinksOf(t, root)}})
			if err != nil {
				t.Fatalf("child snapshot at %s: %v", root, err)
			}
			return &cs
		}
		// run runs the command and reports whether it ran (a root that
		// leads elsewhere than it was bound is refused as a cwd).
		run := func(s *domain.TurnExecutionSecuritySnapshot, dir, file string) bool {
			t.Helper()
			p, err := PlanSpawn(s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "cd " + dir + " && echo pwned >> " + file + "; echo done"}}, os.Environ())
			if err != nil {
				return false
			}
			r, err := Run(context.Background(), p)
			WaitCleanup()
			return err == nil && strings.Contains(string(r.Stdout), "done")
		}
		ctlRoot := repo + "/src"
		if parentLinks == nil {
			ctlRoot = repo + "/ls"
		}
		mkfiles(t, repo, map[string]string{"src/x.go": "package x\n"})
		if !run(child(ctlRoot), ctlRoot, "x.go") || !strings.Contains(read("src/x.go"), "pwned") {
			t.Fatalf("control: a child rooted at %s did not write x.go", ctlRoot)
		}
		c := child(repo + "/lv")
		if _, err := (DecisionChecker{}).ResolveFile(c, repo+"/lv/tasks.json", domain.AccessWrite, false); err == nil {
			t.Errorf("a file tool's write of repo/lv/tasks.json (repo/.vscode/tasks.json) was allowed to a child rooted at repo/lv (parent's links %v)", parentLinks)
		}
		run(c, repo+"/lv", "tasks.json")
		if got := read(".vscode/tasks.json"); strings.Contains(got, "pwned") {
			t.Errorf("a command of a child rooted at repo/lv (a link to .vscode) rewrote repo/.vscode/tasks.json, read-only to its parent (parent's links %v): %q", parentLinks, got)
			mkfiles(t, repo, map[string]string{".vscode/tasks.json": "{}\n"})
		}
	}
}
