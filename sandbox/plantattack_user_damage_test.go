package sandbox

import (
	"testing"
)

// TestAttackPlantUserDamage: the check quarantines any repository in a
// writable root whose control entries have a new ctime and whose config
// holds a key outside the allowlist, whoever wrote that config. The
// person's own repositories that discovery does not pin (a bare one:
// discovery looks for ".git" only; one deeper than 6 levels) get their
// HEAD renamed after a command that did not change their config or hooks.
//
// touch: the command only updates the git dir's ctime (touch, no content).
// status: the command runs git status there (read-only intent; the index
// lock changes the git dir's ctime).
// push: the command pushes to the person's shared bare repository (git
// init --bare --shared writes core.sharedrepository and
// receive.denyNonFastforwards, neither on the allowlist).
func TestAttackPlantUserDamage(t *testing.T) {
	for _, c := range []struct{ name, script string }{
		{"touch", "touch d/1/2/3/4/5/6/7/deep/.git"},
		{"status", agentGit + "-C d/1/2/3/4/5/6/7/deep status --short"},
		{"push", agentGit + "push -q shared.git HEAD:refs/heads/main"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			deep := f.ws + "/d/1/2/3/4/5/6/7/deep"
			mkfiles(t, deep, map[string]string{"f": "x\n"})
			hostGit(t, deep, "init", "-q")
			hostGit(t, deep, "config", "pull.ff", "only")
			hostGit(t, deep, "config", "merge.conflictstyle", "diff3") // a person's everyday setting
			hostGit(t, deep, "add", ".")
			hostGit(t, deep, "commit", "-q", "-m", "deep")
			hostGit(t, f.ws, "init", "-q", "--bare", "--shared=group", "shared.git")
			clockPast(t, deep+"/.git/index")
			clockPast(t, f.ws+"/shared.git/config")
			r := sh(t, f.s, c.script)
			attackReport(t, "command", r)
			for _, p := range []string{deep + "/.git/HEAD", f.ws + "/shared.git/HEAD"} {
				if !exists(p) {
					t.Errorf("DAMAGE: the person's repository lost its HEAD: %s", p)
				}
			}
		})
	}
}
