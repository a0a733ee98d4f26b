package sandbox

import (
	"strings"
	"testing"
)

// TestAttackPlantRebaseTodo (second attack review): the workspace's own
// git dir is held (config, hooks, info, commondir read-only), but its
// sequencer state is writable: a command leaves an interactive rebase
// stopped at a "break" with an "exec" line after it; the person's git
// rebase --continue would run the command's program outside the sandbox.
// The state is set aside after the command.
func TestAttackPlantRebaseTodo(t *testing.T) {
	f := newPlantFixture(t)
	r := sh(t, f.s, "export GIT_SEQUENCE_EDITOR=\"printf 'break\\nexec "+f.attackMarkerCmd()+"\\n' >\"; "+agentGit+"rebase -q -i HEAD; echo rc=$?; ls .git/rebase-merge")
	attackReport(t, "command", r)
	if !strings.Contains(string(r.Stdout), "git-rebase-todo") {
		t.Fatal("no rebase stopped: the plant failed")
	}
	if got := quarantined(r); len(got) != 1 || got[0] != f.ws+"/.git/rebase-merge" {
		t.Fatalf("the stopped rebase was not set aside: %v", got)
	}
	out, _ := hostGitRun(t, f.ws, "status")
	t.Logf("host git status:\n%s", out)
	if exists(f.marker) {
		t.Fatal("ESCAPE already at git status")
	}
	attackHostStatus(t, f, f.ws, "rebase", "--continue")
}
