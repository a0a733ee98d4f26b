package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack89_OutsideGitfile (eighty-ninth review): a ".git" file the
// command writes in a subdirectory of a writable root is set aside when it
// makes that directory a second work tree of a repository the command ran
// with held (gitfile: "a .git file that makes this directory a second work
// tree of …"), because a path that repository's config names relative to
// the work tree (husky's core.hooksPath = .husky/_) is then the command's
// to fill. A ".git" file naming a git dir OUTSIDE the writable roots (the
// person's other project, next to the workspace) is not judged at all:
// gitfile returns when the target is not held, and the walk never visits
// it. The command writes sub/.git ("gitdir: <other>/.git") and
// sub/.husky/_/pre-commit; the person's next commit in sub runs the
// command's hook on the host.
//
// Control: a separate git dir the command makes itself inside the root
// (git init --separate-git-dir) stays usable, and the person's husky hook
// runs in their other project as installed.
//
// The same with the person's global config naming a relative hooks path
// (core.hooksPath = .githooks, the eighteenth review's case): then ANY
// repository of the person outside the roots serves.
func TestAttack89_OutsideGitfile(t *testing.T) {
	for _, global := range []bool{false, true} {
		t.Run(map[bool]string{false: "husky", true: "globalhooks"}[global], func(t *testing.T) {
			attack89OutsideGitfile(t, global)
		})
	}
}

func attack89OutsideGitfile(t *testing.T, global bool) {
	f := requireKernel(t, true)
	home := tempWorkspace(t)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	gc := "[user]\n\tname = p\n\temail = p@example.com\n"
	hooksDir := ".husky/_"
	if global {
		gc += "[core]\n\thooksPath = .githooks\n"
		hooksDir = ".githooks"
	}
	mustDo(t, os.WriteFile(home+"/.gitconfig", []byte(gc), 0o644))
	git := func(dir string, args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1"}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	// The person's other project, outside the turn's roots: husky 9.
	other := tempWorkspace(t)
	mkfiles(t, other, map[string]string{
		hooksDir + "/pre-commit": "#!/bin/sh\ntouch \"" + other + "/person-hook-ran\"\n",
		"package.json":           "{}\n",
	})
	mustDo(t, os.Chmod(other+"/"+hooksDir+"/pre-commit", 0o755))
	if out, err := git(other, "init", "-q"); err != nil {
		t.Fatal(out, err)
	}
	if !global {
		if out, err := git(other, "config", "core.hooksPath", ".husky/_"); err != nil {
			t.Fatal(out, err)
		}
	}
	if out, err := git(other, "commit", "-q", "--allow-empty", "-m", "first"); err != nil || !exists(other+"/person-hook-ran") {
		t.Fatalf("control: the person's husky hook did not run in their project: %v %s", err, out)
	}

	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"src/main.go": "x\n"})
	if out, err := git(ws, "init", "-q"); err != nil {
		t.Fatal(out, err)
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	forgetWalks()

	// Control: a repository the command makes with its git dir apart.
	r := sh(t, s, "git init -q --separate-git-dir=\"$PWD/gd\" honest && echo y >> src/main.go")
	if r.ExitCode != 0 {
		t.Fatalf("control: the command failed: %d %s", r.ExitCode, r.Stderr)
	}
	if out, err := git(ws+"/honest", "commit", "-q", "--allow-empty", "-m", "honest"); err != nil {
		t.Fatalf("control: the repository the command made with git init --separate-git-dir is not usable (set aside %v): %v %s", r.Quarantined, err, out)
	}

	r = sh(t, s, "mkdir -p sub/"+hooksDir+" && printf '#!/bin/sh\\ntouch "+ws+"/pwned\\n' > sub/"+hooksDir+"/pre-commit && chmod +x sub/"+hooksDir+"/pre-commit && echo 'gitdir: "+other+"/.git' > sub/.git")
	if r.ExitCode != 0 {
		t.Fatalf("the command failed: %d %s", r.ExitCode, r.Stderr)
	}
	out, err := git(ws+"/sub", "commit", "-q", "--allow-empty", "-m", "in sub")
	if exists(ws + "/pwned") {
		t.Errorf("the person's commit in sub ran the command's sub/%s/pre-commit: sub/.git, written by the command, names %s/.git (outside the writable roots; hooks taken from the work tree), and was not set aside (set aside: %v): %v %s",
			hooksDir, other, r.Quarantined, err, strings.TrimSpace(out))
	}
}
