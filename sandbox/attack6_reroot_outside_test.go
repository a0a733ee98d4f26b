package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// attack6Git runs git in dir as the person would (outside any sandbox).
func attack6Git(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=p", "-c", "user.email=p@x"}, args...)...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1"}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestAttack6DotGitFileToEnclosingRepository: the check after a command
// sets aside a ".git" file the command wrote that makes its directory a
// second work tree of a repository it ran with held, when that
// repository's config names hooks relative to the work tree (husky's
// core.hooksPath=.husky): git would run the hooks the command put in the
// new work tree. A workspace is often a directory inside a repository (a
// package of a monorepo): that enclosing repository lies outside the
// writable roots, is never held, and a ".git" file pointing at its git dir
// is left in place. The command writes pkg/sub/.git ("gitdir:
// <monorepo>/.git") and pkg/sub/.husky/pre-commit; the person's next git
// commit there (or their editor's, which detects sub/ as a repository) runs
// the command's hook outside the sandbox, as the person.
//
// Control: the same .git file pointing at a held repository inside the
// workspace (with the same core.hooksPath) is set aside.
func TestAttack6DotGitFileToEnclosingRepository(t *testing.T) {
	f := requireKernel(t, true)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	mono := tempWorkspace(t)
	ws := mono + "/pkg"
	for _, d := range []string{mono + "/.husky", ws, ws + "/inner"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	hook := "#!/bin/sh\nexit 0\n"
	for _, repo := range []string{mono, ws + "/inner"} {
		if out, err := attack6Git(t, repo, "init", "-q", "-b", "main", "."); err != nil {
			t.Fatalf("git init %s: %v %s", repo, err, out)
		}
		if out, err := attack6Git(t, repo, "config", "core.hooksPath", ".husky"); err != nil {
			t.Fatalf("git config: %v %s", err, out)
		}
	}
	if err := os.WriteFile(mono+"/.husky/pre-commit", []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ws+"/f", []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := attack6Git(t, mono, "add", ".husky", "pkg/f"); err != nil {
		t.Fatalf("git add: %v %s", err, out)
	}
	if out, err := attack6Git(t, mono, "commit", "-q", "-m", "init"); err != nil {
		t.Fatalf("git commit: %v %s", err, out)
	}
	marker := filepath.Join(t.TempDir(), "ran")

	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	forgetWalks()
	plant := func(dir, gitdir string) string {
		return "mkdir -p " + dir + "/.husky && echo 'gitdir: " + gitdir + "' > " + dir + "/.git && " +
			"printf '#!/bin/sh\\ntouch " + marker + "\\n' > " + dir + "/.husky/pre-commit && chmod +x " + dir + "/.husky/pre-commit"
	}
	r := sh(t, s, plant("a", ws+"/inner/.git")+" && "+plant("b", mono+"/.git"))
	if r.ExitCode != 0 {
		t.Fatalf("planting: exit %d %s", r.ExitCode, r.Stderr)
	}
	var set []string
	for _, q := range r.Quarantined {
		set = append(set, strings.TrimPrefix(q.Path, ws+"/"))
	}
	if !exists(ws + "/a/.git" + domain.UntrustedSuffix) {
		t.Fatalf("control: the .git file making a/ a work tree of the held inner repository was not set aside (set aside: %v)", set)
	}
	if !exists(ws + "/b/.git") {
		return // set aside: held
	}
	out, _ := attack6Git(t, ws+"/b", "commit", "-q", "--allow-empty", "-m", "person's commit")
	msg := "the .git file making pkg/b a work tree of the enclosing repository (outside the roots, hooks relative to the work tree) was left in place (set aside: " + strings.Join(set, ", ") + ")"
	if exists(marker) {
		msg += "; ESCAPE: the person's git commit in pkg/b ran the command's pre-commit hook (" + strings.TrimSpace(out) + ")"
	}
	t.Error(msg)
}

// TestAttack6EnclosingRepositoryHooksInWorkspace: the same blind spot from
// the other side. Discovery (protect.go) keeps read-only the hooks
// directory (core.hooksPath), fsmonitor program and include files of the
// repositories found in the writable roots, never of the repository that
// encloses a writable root. A monorepo whose config has core.hooksPath =
// pkg/githooks, with the workspace at pkg: the hooks lie in a writable
// root, the command rewrites pre-commit, nothing sets it aside, and the
// person's next commit in the monorepo runs it outside the sandbox.
//
// Control: with the workspace at the monorepo's root (the repository is
// then held), the same hook is read-only.
func TestAttack6EnclosingRepositoryHooksInWorkspace(t *testing.T) {
	f := requireKernel(t, true)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	mono := tempWorkspace(t)
	if err := os.MkdirAll(mono+"/pkg/githooks", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mono+"/pkg/githooks/pre-commit", []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main", "."}, {"config", "core.hooksPath", "pkg/githooks"}, {"add", "-A"}, {"commit", "-q", "-m", "init"}} {
		if out, err := attack6Git(t, mono, args...); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	marker := filepath.Join(t.TempDir(), "ran")
	write := "printf '#!/bin/sh\\ntouch " + marker + "\\n' > githooks/pre-commit"

	// Control: the monorepo's root as the workspace holds the repository.
	forgetWalks()
	if r := sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, mono, f.Kernel), "cd pkg && "+write); r.ExitCode == 0 {
		t.Fatalf("control: the held repository's hooks were writable")
	}
	forgetWalks()
	r := sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, mono+"/pkg", f.Kernel), write)
	if r.ExitCode != 0 {
		return // held
	}
	out, _ := attack6Git(t, mono, "commit", "-q", "--allow-empty", "-m", "person's commit")
	msg := "a command of a workspace inside the monorepo rewrote the monorepo's pre-commit hook (core.hooksPath inside the workspace) and nothing set it aside"
	if exists(marker) {
		msg += "; ESCAPE: the person's git commit ran it (" + strings.TrimSpace(out) + ")"
	}
	t.Error(msg)
}

// TestAttack6LinkedWorktreeHooksPathWritable: a workspace that is a linked
// work tree of a repository kept elsewhere (`git worktree add`, how agent
// runtimes give each agent its own checkout) has a ".git" file pointing at
// <repo>/.git/worktrees/<name>, whose config is the common dir's
// (<repo>/.git/config). Discovery (protect.go: dotGit, configRefs) reads
// the config of the worktree's own git dir, which has none, and never the
// common dir's: the core.hooksPath it names relative to the work tree
// (.githooks, a committed hooks directory) lies in the workspace and stays
// writable. The command rewrites .githooks/pre-commit; nothing sets it
// aside; the person's next commit in the worktree runs it outside the
// sandbox.
//
// Control: with the workspace at the repository's main work tree, the same
// hooks directory is read-only.
func TestAttack6LinkedWorktreeHooksPathWritable(t *testing.T) {
	f := requireKernel(t, true)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo := tempWorkspace(t)
	wt := tempWorkspace(t) + "/agent"
	if err := os.MkdirAll(repo+"/.githooks", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(repo+"/.githooks/pre-commit", []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main", "."}, {"config", "core.hooksPath", ".githooks"}, {"add", "-A"},
		{"commit", "-q", "-m", "init"}, {"worktree", "add", "-q", wt, "-b", "agent"}} {
		if out, err := attack6Git(t, repo, args...); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	marker := filepath.Join(t.TempDir(), "ran")
	write := "printf '#!/bin/sh\\ntouch " + marker + "\\n' > .githooks/pre-commit"

	forgetWalks()
	if r := sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, repo, f.Kernel), write); r.ExitCode == 0 {
		t.Fatalf("control: the main work tree's hooks directory was writable")
	}
	forgetWalks()
	r := sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, wt, f.Kernel), write)
	if r.ExitCode != 0 {
		return // held
	}
	var set []string
	for _, q := range r.Quarantined {
		set = append(set, q.Path)
	}
	out, _ := attack6Git(t, wt, "commit", "-q", "--allow-empty", "-m", "person's commit")
	msg := "a command in a linked worktree rewrote the hooks directory its repository's core.hooksPath names (set aside: " + strings.Join(set, ", ") + ")"
	if exists(marker) {
		msg += "; ESCAPE: the person's git commit in the worktree ran it (" + strings.TrimSpace(out) + ")"
	}
	t.Error(msg)
}
