package sandbox

import (
	"os"
	"slices"
	"testing"

	"turnstile/domain"
)

// TestAttack3Reroot (third attack review): the workspace's config is held
// read-only, and discovery keeps read-only what it names relative to the
// work tree (core.hooksPath: husky writes ".husky/_"). But "relative to the
// work tree" depends on where git finds the work tree: a gitfile
// "gitdir: ../.git" in a subdirectory makes that subdirectory a second
// work tree of the workspace's own git dir (held, so the check never reads
// it; the walk looks at git dirs, never at gitfiles), and the person's own
// config now takes its hooks from <subdir>/.husky/_, which the command
// wrote. The person's next commit in that subdirectory (a package of a
// monorepo) runs the command's pre-commit.
//
// gitfile: the subdirectory's .git is a gitfile naming the held git dir.
// worktree-add: the command runs an ordinary `git worktree add wt` (the
// new git dir .git/worktrees/wt has no config or hooks of its own: trusted)
// and writes wt/.husky/_/pre-commit (husky's hook dir is not tracked: a new
// work tree has none); the person's next commit in the work tree runs it.
func TestAttack3Reroot(t *testing.T) {
	for _, c := range []struct{ name, dir, script string }{
		{"gitfile", "pkg", "cd pkg && echo 'gitdir: ../.git' > .git && "},
		{"worktree-add", "wt", agentGit + "worktree add -q wt && cd wt && "},
	} {
		t.Run(c.name, func(t *testing.T) { attack3Reroot(t, c.dir, c.script) })
	}
}

func attack3Reroot(t *testing.T, dir, script string) {
	f := newPlantFixture(t)
	if err := os.MkdirAll(f.ws+"/.husky/_", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.ws+"/.husky/_/pre-commit", []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	hostGit(t, f.ws, "config", "core.hooksPath", ".husky/_")
	mkfiles(t, f.ws, map[string]string{"pkg/index.js": "x\n"})
	hostGit(t, f.ws, "add", ".")
	hostGit(t, f.ws, "commit", "-q", "-m", "husky")
	r := sh(t, f.s, script+"mkdir -p .husky/_ && printf '#!/bin/sh\\n"+f.attackMarkerCmd()+"\\n' > .husky/_/pre-commit && chmod +x .husky/_/pre-commit && echo ok")
	attackReport(t, "command", r)
	if r.ExitCode != 0 {
		t.Fatal("the plant failed")
	}
	// Control: the hooks of the workspace's root are the person's.
	out, err := hostGitRun(t, f.ws, "commit", "-q", "--allow-empty", "-m", "at the root")
	t.Logf("host git commit at the root: err=%v %s", err, out)
	if exists(f.marker) {
		t.Fatal("the root's hooks were changed: not this attack")
	}
	attackHostStatus(t, f, f.ws+"/"+dir, "commit", "-q", "--allow-empty", "-m", "in the package")
}

// TestRerootUnderAModulesDirectory: the re-root rule skips a submodule's
// git dir (under a held repository's modules/, whose config names its work
// tree), not any git dir whose path holds "/modules/": a workspace that
// lies in a directory named modules is covered too.
func TestRerootUnderAModulesDirectory(t *testing.T) {
	requireKernel(t, true)
	base := tempWorkspace(t)
	ws := base + "/modules/ws"
	mkfiles(t, ws, map[string]string{"pkg/index.js": "x\n", ".husky/_/pre-commit": "#!/bin/sh\nexit 0\n"})
	hostGit(t, ws, "init", "-q")
	hostGit(t, ws, "config", "core.hooksPath", ".husky/_")
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
	r := sh(t, s, "echo 'gitdir: ../.git' > pkg/.git && echo ok")
	if r.ExitCode != 0 || !slices.Equal(quarantined(r), []string{ws + "/pkg/.git"}) {
		t.Fatalf("(%d) set aside %v", r.ExitCode, quarantined(r))
	}
}
