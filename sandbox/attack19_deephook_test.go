package sandbox

import (
	"os"
	"strings"
	"testing"
)

// TestAttack19DeepRepoHookRewrittenInPlace (nineteenth attack review,
// medium): a person's repository that discovery does not hold (deeper than
// its 6 levels, or bare) keeps writable hooks during a command, and the
// check after it judges such a repository only when one of its control
// names changed: its config, config.worktree, commondir, or its hooks
// directory's own change time. That time changes only when an entry is
// made, removed or renamed in it. A hook the person installed (pre-commit's,
// lefthook's, git lfs install's) rewritten in place (`>` opens it with
// O_TRUNC) leaves the directory's time alone, so the repository is never
// judged, and the person's next commit or push runs the agent's program.
// Control: a command that writes only the work tree leaves the repository
// and its hook as they were (HEAD kept, the person's hook runs).
func TestAttack19DeepRepoHookRewrittenInPlace(t *testing.T) {
	for _, c := range []struct{ name, hook, script string }{
		{"deep", "d/1/2/3/4/5/6/7/deep/.git/hooks/pre-commit", ""},
		{"bare", "shared.git/hooks/pre-receive", ""},
		// The same through what the config names: a hooks path in the
		// work tree, an include the project ships.
		{"hookspath", "d/1/2/3/4/5/6/7/deep/.githooks/pre-commit", ""},
		{"include", "", "printf '[core]\\n\\tfsmonitor = MARKER\\n' >> d/1/2/3/4/5/6/7/deep/.gitconfig"},
		// A hooks dir that is a symlink to one in the work tree.
		{"linkedhooks", "d/1/2/3/4/5/6/7/deep/hooks-shared/pre-commit", ""},
		{"control", "d/1/2/3/4/5/6/7/deep/.git/hooks/pre-commit", "echo edit > d/1/2/3/4/5/6/7/deep/f"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			deep := f.ws + "/d/1/2/3/4/5/6/7/deep"
			mkfiles(t, deep, map[string]string{"f": "x\n"})
			hostGit(t, deep, "init", "-q")
			if c.name == "hookspath" || c.name == "include" {
				mkfiles(t, deep, map[string]string{".gitconfig": "[alias]\n\tlg = log --oneline\n"})
				if err := os.MkdirAll(deep+"/.githooks", 0o755); err != nil {
					t.Fatal(err)
				}
				hostGit(t, deep, "config", "include.path", "../.gitconfig")
				hostGit(t, deep, "config", "core.hooksPath", ".githooks")
			}
			if c.name == "linkedhooks" {
				mustDo(t, os.Rename(deep+"/.git/hooks", deep+"/hooks-shared"))
				mustDo(t, os.Symlink("../hooks-shared", deep+"/.git/hooks"))
			}
			hostGit(t, deep, "add", ".")
			hostGit(t, deep, "commit", "-q", "-m", "deep")
			hostGit(t, f.ws, "init", "-q", "--bare", "shared.git")
			personHook := "#!/bin/sh\necho the person hook\n"
			hooks := []string{deep + "/.git/hooks/pre-commit", f.ws + "/shared.git/hooks/pre-receive"}
			if exists(deep + "/.githooks") {
				hooks = append(hooks, deep+"/.githooks/pre-commit")
			}
			for _, h := range hooks {
				if err := os.WriteFile(h, []byte(personHook), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			clockPast(t, deep+"/.git/hooks/pre-commit")
			clockPast(t, f.ws+"/shared.git/hooks/pre-receive")
			for _, h := range hooks {
				clockPast(t, h)
			}
			script := strings.ReplaceAll(c.script, "MARKER", f.attackMarkerCmd())
			if script == "" {
				script = "printf '#!/bin/sh\\n" + f.attackMarkerCmd() + "\\n' > " + c.hook
			}
			r := sh(t, f.s, script+" && echo ok")
			attackReport(t, "command", r)
			if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "ok") {
				t.Fatal("the command failed")
			}
			if c.name == "control" {
				if !exists(deep+"/.git/HEAD") || readFile(t, deep+"/.git/hooks/pre-commit") != personHook {
					t.Fatalf("DAMAGE: a command that wrote only the work tree changed the person's repository")
				}
			}
			// The person's next commit in the deep repository, and push
			// to the bare one.
			attackHostStatus(t, f, deep, "commit", "-q", "--allow-empty", "-m", "next")
			attackHostStatus(t, f, deep, "push", "-q", f.ws+"/shared.git", "HEAD:refs/heads/main")
		})
	}
}

// TestAttack19DeepRepoGlobalHooksPath: the same through the person's
// global config, whose relative hooks path (core.hooksPath = .githooks) is
// each work tree's: in a repository discovery does not hold, the work
// tree's .githooks stays writable, and a hook there rewritten in place
// ran at the person's next commit. Control: a command that writes only
// the work tree leaves the repository as it was.
func TestAttack19DeepRepoGlobalHooksPath(t *testing.T) {
	for _, control := range []bool{false, true} {
		home := tempWorkspace(t)
		t.Setenv("HOME", home)
		t.Setenv("XDG_CONFIG_HOME", "")
		mustDo(t, os.WriteFile(home+"/.gitconfig", []byte("[core]\n\thooksPath = .githooks\n"), 0o644))
		f := newPlantFixture(t)
		deep := f.ws + "/d/1/2/3/4/5/6/7/deep"
		personHook := "#!/bin/sh\necho the person hook\n"
		mkfiles(t, deep, map[string]string{"f": "x\n", ".githooks/pre-commit": personHook})
		mustDo(t, os.Chmod(deep+"/.githooks/pre-commit", 0o755))
		hostGit(t, deep, "init", "-q")
		hostGit(t, deep, "add", ".")
		hostGit(t, deep, "commit", "-q", "-m", "deep")
		clockPast(t, deep+"/.githooks/pre-commit")
		forgetWalks()
		script := "printf '#!/bin/sh\\n" + f.attackMarkerCmd() + "\\n' > d/1/2/3/4/5/6/7/deep/.githooks/pre-commit"
		if control {
			script = "echo edit > d/1/2/3/4/5/6/7/deep/f"
		}
		r := sh(t, f.s, script+" && echo ok")
		attackReport(t, "command", r)
		if r.ExitCode != 0 {
			t.Fatal("the command failed")
		}
		if control && (!exists(deep+"/.git/HEAD") || readFile(t, deep+"/.githooks/pre-commit") != personHook) {
			t.Fatalf("DAMAGE: a command that wrote only the work tree changed the person's repository")
		}
		out, err := hostGitRunHome(t, deep, home, "-c", "user.name=p", "-c", "user.email=p@example.com", "commit", "-q", "--allow-empty", "-m", "next")
		if exists(f.marker) {
			t.Fatalf("ESCAPE: the person's next commit ran the command's .githooks/pre-commit (set aside %v): %v %s", r.Quarantined, err, out)
		}
	}
}
