package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"turnstile/domain"
)

// TestAttack14CommandLinksAnotherVCSDir: the check after a command sets
// aside a Mercurial, Jujutsu or Sapling config it made in a .hg, .jj or .sl
// directory (the previous commit), found by the walk of the writable
// roots, which visits directories and not symlinks; hg follows a .hg that
// is a symlink, and jj a .jj/repo that is one, so a command that made
// evilhg/hgrc with a hook and the symlink sub/.hg to it left ws/sub a
// Mercurial repository running that hook (and sub/.jj/repo leading to a
// store of its own with a jj alias the same). Such a symlink the command
// made is now set aside. The control: a symlink named .hg made before the
// command stays, and so does a plain directory's hgrc the command did not
// touch.
func TestAttack14CommandLinksAnotherVCSDir(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	hostGit(t, ws, "init", "-q")
	mkfiles(t, ws, map[string]string{"shared/hgrc": "[paths]\n", "old/": ""})
	mustDo(t, os.Symlink("../shared", ws+"/old/.hg"))
	clockPast(t, ws+"/old/.hg")
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, `mkdir -p evilhg evilstore sub6 sub7/.jj &&
printf '[hooks]\npre-status = id > /tmp/pwned\n' > evilhg/hgrc && ln -s ../evilhg sub6/.hg &&
printf '[aliases]\nst = ["util", "exec", "--", "id"]\n' > evilstore/config.toml && ln -s ../../evilstore sub7/.jj/repo`)
	if r.ExitCode != 0 {
		t.Fatalf("the command failed: %d %s", r.ExitCode, r.Stderr)
	}
	for _, p := range []string{"sub6/.hg/hgrc", "sub7/.jj/repo/config.toml"} {
		if b, err := os.ReadFile(filepath.Join(ws, p)); err == nil {
			t.Errorf("%s stays after the command, through a symlink it made: %q", p, b)
		}
	}
	// control
	if _, err := os.ReadFile(filepath.Join(ws, "old/.hg/hgrc")); err != nil {
		t.Errorf("control: the symlink old/.hg made before the command: %v", err)
	}
}
