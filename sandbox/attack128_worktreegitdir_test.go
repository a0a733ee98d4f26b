package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// hostGit runs the person's git (outside the sandbox) in dir.
func hostGit128(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=p", "GIT_AUTHOR_EMAIL=p@x", "GIT_COMMITTER_NAME=p", "GIT_COMMITTER_EMAIL=p@x")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
	return string(out)
}

// TestAttack128_WorktreeGitdirRepairWritesOutside (the hundred-and-twenty-
// eighth review): a linked worktree's admin dir holds "gitdir", the path
// of the work tree's ".git" file, which git reads (worktree.c: the whole
// file, trailing blanks trimmed) and `git worktree repair` writes to:
// where that ".git" is missing or names another git dir, git writes
// "gitdir: <this admin dir>" there. Neither the pins at spawn nor the
// check after a command look at a gitdir file (only commondir, config,
// config.worktree, hooks, info of a git dir are kept): a command makes
// .git/worktrees/x/gitdir (a directory without HEAD is no git dir to the
// check) or rewrites an existing worktree's, naming a directory outside
// the writable roots, and the person's next `git worktree repair` writes a
// .git file there (making it a work tree of the workspace's repository),
// or overwrites another repository's linked worktree's .git file.
// Control: an honest commit in the existing linked worktree (git writes its
// admin dir) works, and repair after it writes nothing.
func TestAttack128_WorktreeGitdirRepairWritesOutside(t *testing.T) {
	f := requireKernel(t, true)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ws := tempWorkspace(t)
	hostGit128(t, ws, "init", "-q")
	hostGit128(t, ws, "commit", "-q", "--allow-empty", "-m", "init")
	hostGit128(t, ws, "worktree", "add", "-q", "--detach", "wt")
	outside := tempWorkspace(t) // not a root of the turn
	victim := filepath.Join(outside, "victim")
	if err := os.MkdirAll(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	filepath.Walk(ws, func(p string, _ os.FileInfo, _ error) error { clockPast(t, p); return nil })
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)

	// Control: honest work in the existing linked worktree (git writes its
	// admin dir: index, HEAD, logs) stays possible, and the person's
	// repair afterwards finds nothing to do.
	r := sh(t, s, "cd wt && echo a > f && git add f && git -c user.name=a -c user.email=a@b commit -qm c 2>&1")
	if r.ExitCode != 0 {
		t.Fatalf("control: a commit in the linked worktree failed: %d %s %s", r.ExitCode, r.Stdout, r.Stderr)
	}
	if out := hostGit128(t, ws, "worktree", "repair"); out != "" {
		t.Fatalf("control: repair after honest work: %q", out)
	}

	// Attack 1: a new admin dir holding only gitdir.
	r = sh(t, s, "mkdir -p .git/worktrees/x && printf '%s\\n' '"+victim+"/.git' > .git/worktrees/x/gitdir")
	// Attack 2: an existing worktree's gitdir rewritten.
	other := filepath.Join(outside, "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	r2 := sh(t, s, "printf '%s\\n' '"+other+"/.git' > .git/worktrees/wt/gitdir")

	// Attack 3: another repository's linked worktree outside the roots,
	// whose .git file the person's repair overwrites (hijacked: the
	// person's git there then works on the workspace's repository).
	orepo := filepath.Join(outside, "orepo")
	if err := os.MkdirAll(orepo, 0o755); err != nil {
		t.Fatal(err)
	}
	hostGit128(t, orepo, "init", "-q")
	hostGit128(t, orepo, "commit", "-q", "--allow-empty", "-m", "other")
	hostGit128(t, orepo, "worktree", "add", "-q", "--detach", "../owt")
	owt := filepath.Join(outside, "owt")
	before, err := os.ReadFile(filepath.Join(owt, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	r3 := sh(t, s, "mkdir -p .git/worktrees/y && printf '%s\\n' '"+owt+"/.git' > .git/worktrees/y/gitdir")

	out := hostGit128(t, ws, "worktree", "repair")
	if b, _ := os.ReadFile(filepath.Join(owt, ".git")); string(b) != string(before) {
		t.Errorf("a command's worktrees/y/gitdir made the person's `git worktree repair` overwrite another repository's worktree file %s outside the roots: %q, was %q (quarantined %+v)", owt+"/.git", b, before, r3.Quarantined)
	}
	if b, err := os.ReadFile(filepath.Join(victim, ".git")); err == nil {
		t.Errorf("a command's worktrees/x/gitdir made the person's `git worktree repair` write %s outside the roots: %q (repair said %q; quarantined %+v)", victim+"/.git", b, out, r.Quarantined)
	}
	if b, err := os.ReadFile(filepath.Join(other, ".git")); err == nil {
		t.Errorf("a command's rewrite of worktrees/wt/gitdir made the person's `git worktree repair` write %s outside the roots: %q (quarantined %+v)", other+"/.git", b, r2.Quarantined)
	}
	// Control: the honest worktree still works for the person.
	if got := hostGit128(t, filepath.Join(ws, "wt"), "log", "-1", "--format=%s"); strings.TrimSpace(got) != "c" {
		t.Errorf("control: the linked worktree lost the command's commit: %q", got)
	}
}

// TestAttack128_WorktreeGitdirRepairReroots: the same gitdir file, turned
// inward, runs the agent's program. The person's repository uses husky
// (core.hooksPath = .husky/_, relative to the work tree) and has a linked
// worktree wt. Command 1 fills pkg/.husky/_/pre-commit (a directory of the
// root that is no work tree: harmless). Command 2 rewrites
// .git/worktrees/wt/gitdir to name pkg/.git (nothing pins or judges it).
// The person's `git worktree repair` then writes pkg/.git ("gitdir:
// .git/worktrees/wt"), which no check looks at (git wrote it, after the
// command), and the person's next commit in pkg runs the agent's hook.
// Control: after command 1 alone, the person's repair and a commit at
// the root run nothing of the command's.
func TestAttack128_WorktreeGitdirRepairReroots(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{".husky/_/pre-commit": "#!/bin/sh\nexit 0\n", "pkg/index.js": "x\n"})
	if err := os.Chmod(f.ws+"/.husky/_/pre-commit", 0o755); err != nil {
		t.Fatal(err)
	}
	hostGit(t, f.ws, "config", "core.hooksPath", ".husky/_")
	hostGit(t, f.ws, "add", ".")
	hostGit(t, f.ws, "commit", "-q", "-m", "husky")
	hostGit(t, f.ws, "worktree", "add", "-q", "--detach", f.ws+"/wt")
	filepath.Walk(f.ws, func(p string, _ os.FileInfo, _ error) error { clockPast(t, p); return nil })

	r := sh(t, f.s, "mkdir -p pkg/.husky/_ && printf '#!/bin/sh\\n"+f.attackMarkerCmd()+"\\n' > pkg/.husky/_/pre-commit && chmod +x pkg/.husky/_/pre-commit && echo ok")
	attackReport(t, "command 1", r)
	if r.ExitCode != 0 {
		t.Fatal("control: the plant in pkg failed")
	}
	// Control: the person's repair and a commit at the root.
	if out, err := hostGitRun(t, f.ws, "worktree", "repair"); err != nil || out != "" {
		t.Fatalf("control: repair: %v %q", err, out)
	}
	if out, err := hostGitRun(t, f.ws, "commit", "-q", "--allow-empty", "-m", "at the root"); err != nil || exists(f.marker) {
		t.Fatalf("control: the commit at the root: %v %s (marker %v)", err, out, exists(f.marker))
	}
	if exists(f.ws + "/pkg/.git") {
		t.Fatal("control: pkg is a work tree already")
	}

	r = sh(t, f.s, "printf '%s\\n' \"$PWD/pkg/.git\" > .git/worktrees/wt/gitdir && echo ok")
	attackReport(t, "command 2", r)
	out, err := hostGitRun(t, f.ws, "worktree", "repair")
	t.Logf("the person's git worktree repair: %v %q", err, out)
	attackHostStatus(t, f, f.ws+"/pkg", "commit", "-q", "--allow-empty", "-m", "in the package")
}
