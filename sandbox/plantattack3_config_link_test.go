package sandbox

import (
	"os/exec"
	"testing"
)

// TestAttack3ConfigLink (third attack review): ".config/git" is a
// protected path: read-only where it exists, set aside after a command that
// created it. The set-aside opens the parent with RESOLVE_NO_SYMLINKS, so
// when the command made ".config" a symlink (to a directory of its own
// holding git/config), the rename fails: the result names it ("setting it
// aside failed") but leaves it, and the host's git, run with the writable
// root as HOME (a home directory granted writable), reads it and runs its
// core.fsmonitor at the next git status in any repository. The same holds
// for ".config/fish".
func TestAttack3ConfigLink(t *testing.T) {
	f := newPlantFixture(t)
	r := sh(t, f.s, "mkdir -p dot/git && printf '[core]\\n\\tfsmonitor = "+f.attackMarkerCmd()+"\\n' > dot/git/config && ln -s dot .config && echo ok")
	attackReport(t, "command", r)
	if r.ExitCode != 0 {
		t.Fatal("the plant failed")
	}
	for _, q := range r.Quarantined {
		if q.Error == "" {
			t.Logf("set aside: %+v", q)
		}
	}
	cmd := exec.Command("git", "status", "--short")
	cmd.Dir = f.ws
	cmd.Env = []string{"HOME=" + f.ws, "PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1"}
	out, err := cmd.CombinedOutput()
	t.Logf("host git status with HOME=%s: err=%v\n%s", f.ws, err, out)
	if exists(f.marker) {
		t.Fatalf("ESCAPE: the host's git ran the command's program from %s/.config/git/config", f.ws)
	}
}
