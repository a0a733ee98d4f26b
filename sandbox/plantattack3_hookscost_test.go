package sandbox

import (
	"testing"
)

// TestAttack3HooksCost (third attack review): the check's bounds (200 000
// directories, 4096 repositories read, 32 MiB of config) did not bound the
// work it did for every repository the walk met on every later check: it
// listed each git dir's hooks and statted every entry, and a hooks dir of
// git's samples only ("*.sample") was trusted. One command (about 30 s)
// left 20 bare repositories whose hooks dirs held 50 000 hard links each
// to 16 empty "*.sample" files; every later command in that workspace then
// waited 8–11 s for the check. A later check now looks at a hooks dir's
// own change time only, and a hooks dir of more than maxHooks entries is
// not trusted: here (a smaller flood of the same shape) the repositories
// are set aside by the command that made them.
func TestAttack3HooksCost(t *testing.T) {
	f := newPlantFixture(t)
	r := sh(t, f.s, agentGit+"init -q --bare g0 && cp -a g0 g1 && touch src.sample && "+
		"for g in g0 g1; do i=0; while [ $i -lt 100 ]; do ln src.sample $g/hooks/h$i.sample; i=$((i+1)); done; done && echo ok")
	attackReport(t, "plant", r)
	if r.ExitCode != 0 {
		t.Fatal("the plant failed")
	}
	if got := quarantined(r); len(got) != 2 {
		t.Fatalf("set aside %v, want g0 and g1 (more than %d hooks)", got, maxHooks)
	}
}
