package sandbox

import (
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack93_RemovedSubmoduleFalseDeny (false deny of the ninety-second
// fix): physicallyAt takes a core.worktree that does not exist for one
// that leads elsewhere. `git rm` of a submodule removes its work tree and
// keeps its git dir, .git/modules/NAME, whose config still says
// core.worktree = ../../../NAME. A command that adds (or clones with) a
// submodule and removes it gets that git dir set aside as untrusted
// ("leads out of the root or through a symlink"), its HEAD renamed: the
// person's later `git submodule update` at an older commit finds no
// repository there.
//
// Control: the same submodule kept is not set aside.
func TestAttack93_RemovedSubmoduleFalseDeny(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"src/main.go": "x\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	forgetWalks()
	g := "git -c user.name=a -c user.email=a@b.c -c protocol.file.allow=always "
	setup := func(app string) string {
		return "git init -q lib-" + app + " && " + g + "-C lib-" + app + " commit -q --allow-empty -m x && git init -q " + app + " && cd " + app +
			" && " + g + "submodule add -q ../lib-" + app + " lib && " + g + "commit -qm sub"
	}
	// Control: a kept submodule.
	r := sh(t, s, setup("kept"))
	if r.ExitCode != 0 {
		t.Fatalf("control: %d %s", r.ExitCode, r.Stderr)
	}
	if len(r.Quarantined) > 0 {
		t.Fatalf("control: a kept submodule set aside: %v", r.Quarantined)
	}
	r = sh(t, s, setup("app")+" && git rm -q -f lib && "+g+"commit -qm 'drop lib'")
	if r.ExitCode != 0 {
		t.Fatalf("the command failed: %d %s", r.ExitCode, r.Stderr)
	}
	for _, q := range r.Quarantined {
		if strings.Contains(q.Path, "/modules/lib") {
			t.Errorf("an honest `git rm` of a submodule: its kept git dir set aside as untrusted: %+v", q)
		}
	}
	// The person goes back to the commit with the submodule.
	cmd := exec.Command("sh", "-c", "git checkout -q HEAD~1 && git -c protocol.file.allow=always submodule update -q --init && git -C lib rev-parse HEAD")
	cmd.Dir = ws + "/app"
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1"}
	out, err := cmd.CombinedOutput()
	t.Logf("the person's checkout of the commit before and submodule update: %v %s", err, strings.TrimSpace(string(out)))
	if err != nil {
		t.Errorf("the person's `git submodule update` after checking out the commit with the submodule fails: %v %s", err, out)
	}
}
