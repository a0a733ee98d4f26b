package sandbox

import "testing"

// TestAttack3ConfigWriteDamage (third attack review): a person's repository
// that discovery does not hold (deeper than its 6 levels; a bare one) has a
// writable config, and the check reads it whenever its ctime is recent. Any
// ordinary git command that writes the config (git remote add, git
// checkout --track, git branch -u, git submodule add, git sparse-checkout)
// then gets the whole file judged against the allowlist, the person's own
// keys included (merge.conflictstyle, core.pager, rerere.enabled...): the
// repository's HEAD is renamed and the result tells the person that the
// command left a program in it. The allowlist now takes a person's
// everyday choices between built-in behaviours (a key that names a
// program, core.pager among them, still makes such a repository set
// aside: README and doctor say so).
func TestAttack3ConfigWriteDamage(t *testing.T) {
	for _, c := range []struct{ name, script string }{
		{"remote-add", agentGit + "-C d/1/2/3/4/5/6/7/deep remote add upstream https://example.com/up.git"},
		{"bare-remote-add", agentGit + "-C shared.git remote add mirror https://example.com/m.git"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			deep := f.ws + "/d/1/2/3/4/5/6/7/deep"
			mkfiles(t, deep, map[string]string{"f": "x\n"})
			hostGit(t, deep, "init", "-q")
			hostGit(t, deep, "config", "merge.conflictstyle", "diff3") // a person's everyday setting
			hostGit(t, deep, "add", ".")
			hostGit(t, deep, "commit", "-q", "-m", "deep")
			hostGit(t, f.ws, "init", "-q", "--bare", "--shared=group", "shared.git")
			clockPast(t, deep+"/.git/config")
			clockPast(t, f.ws+"/shared.git/config")
			r := sh(t, f.s, c.script+" && echo ok")
			attackReport(t, "command", r)
			if r.ExitCode != 0 {
				t.Fatal("the command failed")
			}
			for _, p := range []string{deep + "/.git/HEAD", f.ws + "/shared.git/HEAD"} {
				if !exists(p) {
					t.Errorf("DAMAGE: the person's repository lost its HEAD after an ordinary command: %s", p)
				}
			}
		})
	}
}
