package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack168_EnvrcAboveRoot (review 168, high: host code execution at
// the person's next cd). direnv loads the nearest .envrc at or above the
// directory a person enters: in repo/sub (which holds none) it runs
// repo/.envrc from repo, which sources sub/scripts/env.sh. A turn rooted
// at repo keeps sub/scripts/env.sh read-only (protectLauncherRefs reads
// repo/.envrc, a protected item of the root). A turn rooted at repo/sub
// inside the operator's allowed_roots (which, since review 165, are to make
// the protected list hold "as if the turn were rooted at each directory
// between the allowed root and the root": BindRoots/aboveRootEntries)
// does not: aboveRootEntries adds only items that cover the root or lie in
// it (repo/.envrc does neither), normalizeEntries would drop it anyway
// (outside every writable root), and the view's launcher discovery reads
// only the launcher files of its writable roots and the walk below them.
// So the agent's file tool and command write sub/scripts/env.sh, which
// the person's shell sources on the next cd into repo/sub.
//
// Control: a turn rooted at repo refuses the same write and keeps the
// file read-only to a command; a script nothing names is written by both.
func TestAttack168_EnvrcAboveRoot(t *testing.T) {
	top := tempWorkspace(t)
	repo := top + "/repo"
	mkfiles(t, repo, map[string]string{
		".envrc":               "source sub/scripts/env.sh\n",
		"sub/scripts/env.sh":   "export X=1\n",
		"sub/scripts/other.sh": "export Y=1\n",
	})
	cat := &domain.ProfileCatalog{Home: "/nonexistent-home", Constraints: &domain.Constraints{AllowedRoots: []string{top}}}
	snap := func(root string) *domain.TurnExecutionSecuritySnapshot {
		t.Helper()
		s, err := domain.SelectSnapshot(&domain.ProfileRequest{Mode: domain.ModeAutoAcceptEdits}, cat, domain.SourceComposer,
			domain.SnapshotInputs{Cwd: root, WorkspaceRoot: root, Kernel: machine().Kernel})
		if err != nil {
			t.Fatalf("snapshot at %s: %v", root, err)
		}
		return &s
	}
	write := func(s *domain.TurnExecutionSecuritySnapshot, rel string) error {
		_, err := (DecisionChecker{}).ResolveFile(s, repo+"/"+rel, domain.AccessWrite, false)
		return err
	}
	cmd := func(s *domain.TurnExecutionSecuritySnapshot, cwd string) {
		t.Helper()
		mkfiles(t, repo, map[string]string{"sub/scripts/env.sh": "export X=1\n", "sub/scripts/other.sh": "export Y=1\n"})
		r := sh(t, s, "cd "+repo+"/sub/scripts && for n in env other; do echo 'touch /tmp/pwned' >> $n.sh; done; echo done")
		if !strings.Contains(string(r.Stdout), "done") {
			t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
		}
		_ = cwd
	}
	read := func(rel string) string { b, _ := os.ReadFile(repo + "/" + rel); return string(b) }

	// Control: rooted at the project.
	parent := snap(repo)
	if err := write(parent, "sub/scripts/env.sh"); err == nil {
		t.Fatalf("control: a turn rooted at repo may write sub/scripts/env.sh, which repo/.envrc sources")
	}
	if err := write(parent, "sub/scripts/other.sh"); err != nil {
		t.Fatalf("control: a turn rooted at repo may not write sub/scripts/other.sh: %v", err)
	}
	cmd(parent, repo)
	if strings.Contains(read("sub/scripts/env.sh"), "pwned") {
		t.Fatalf("control: a command of the turn rooted at repo rewrote sub/scripts/env.sh")
	}
	if !strings.Contains(read("sub/scripts/other.sh"), "pwned") {
		t.Fatalf("control: a command of the turn rooted at repo did not write sub/scripts/other.sh")
	}

	// Rooted at repo/sub, inside allowed_roots.
	child := snap(repo + "/sub")
	if err := write(child, "sub/scripts/other.sh"); err != nil {
		t.Fatalf("control: a turn rooted at repo/sub may not write sub/scripts/other.sh: %v", err)
	}
	if err := write(child, "sub/scripts/env.sh"); err == nil {
		t.Errorf("a file tool's write of repo/sub/scripts/env.sh, which repo/.envrc sources (direnv runs it in repo/sub), was allowed to a turn rooted at repo/sub inside allowed_roots")
	}
	cmd(child, repo+"/sub")
	if !strings.Contains(read("sub/scripts/other.sh"), "pwned") {
		t.Fatalf("control: a command of the turn rooted at repo/sub did not write sub/scripts/other.sh")
	}
	if strings.Contains(read("sub/scripts/env.sh"), "pwned") {
		t.Errorf("a command of a turn rooted at repo/sub rewrote repo/sub/scripts/env.sh, which repo/.envrc sources on the person's next cd into repo/sub: %q", read("sub/scripts/env.sh"))
	}
}

// TestAttack168_EnvrcAboveChildRoot (review 168, high): the same through a
// child turn. The parent, rooted at repo, keeps repo/sub/scripts/env.sh
// read-only (repo/.envrc sources it); its child rooted at repo/sub
// (ResolveChildSnapshot: IntersectFilesystem caps the child's root by what
// the parent grants at repo/sub, write, and keeps the parent's snapshot
// carve-outs, but launcher references are the view's, and the child's view
// reads only the launcher files of the child's roots) writes it, by file
// tool and by command: the child gets more than its parent.
//
// Control: the parent refuses the write and keeps the file from its
// command; the child writes a script nothing names.
func TestAttack168_EnvrcAboveChildRoot(t *testing.T) {
	repo := tempWorkspace(t)
	mkfiles(t, repo, map[string]string{
		".envrc":               "source sub/scripts/env.sh\n",
		"sub/scripts/env.sh":   "export X=1\n",
		"sub/scripts/other.sh": "export Y=1\n",
	})
	parent := snapshotFor(t, domain.ModeAutoAcceptEdits, repo, machine().Kernel)
	cs, err := domain.ResolveChildSnapshot(domain.ChildInputs{Parent: parent, ParentTurnID: "parent",
		Inputs: domain.SnapshotInputs{Cwd: repo + "/sub", WorkspaceRoot: repo + "/sub", Kernel: machine().Kernel}})
	if err != nil {
		t.Fatalf("child snapshot: %v", err)
	}
	child := &cs
	write := func(s *domain.TurnExecutionSecuritySnapshot, rel string) error {
		_, err := (DecisionChecker{}).ResolveFile(s, repo+"/"+rel, domain.AccessWrite, false)
		return err
	}
	cmd := func(s *domain.TurnExecutionSecuritySnapshot) {
		t.Helper()
		mkfiles(t, repo, map[string]string{"sub/scripts/env.sh": "export X=1\n", "sub/scripts/other.sh": "export Y=1\n"})
		r := sh(t, s, "cd "+repo+"/sub/scripts && for n in env other; do echo 'touch /tmp/pwned' >> $n.sh; done; echo done")
		if !strings.Contains(string(r.Stdout), "done") {
			t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
		}
	}
	read := func(rel string) string { b, _ := os.ReadFile(repo + "/" + rel); return string(b) }

	if err := write(parent, "sub/scripts/env.sh"); err == nil {
		t.Fatalf("control: the parent may write sub/scripts/env.sh, which repo/.envrc sources")
	}
	cmd(parent)
	if strings.Contains(read("sub/scripts/env.sh"), "pwned") || !strings.Contains(read("sub/scripts/other.sh"), "pwned") {
		t.Fatalf("control: the parent's command: env.sh %q, other.sh %q", read("sub/scripts/env.sh"), read("sub/scripts/other.sh"))
	}
	if err := write(child, "sub/scripts/other.sh"); err != nil {
		t.Fatalf("control: the child rooted at repo/sub may not write sub/scripts/other.sh: %v", err)
	}
	if err := write(child, "sub/scripts/env.sh"); err == nil {
		t.Errorf("a file tool's write of repo/sub/scripts/env.sh (repo/.envrc sources it) was allowed to a child rooted at repo/sub, refused to its parent")
	}
	cmd(child)
	if !strings.Contains(read("sub/scripts/other.sh"), "pwned") {
		t.Fatalf("control: the child's command did not write sub/scripts/other.sh")
	}
	if strings.Contains(read("sub/scripts/env.sh"), "pwned") {
		t.Errorf("a command of a child rooted at repo/sub rewrote repo/sub/scripts/env.sh, which its parent keeps read-only (repo/.envrc sources it): %q", read("sub/scripts/env.sh"))
	}
}
