package sandbox

import (
	"os/exec"
	"strings"
	"testing"
)

// TestAttack144_LongPathSetAsideReentered (review 144, medium: the
// person's next git status runs the agent's program; `turnstile sandbox`).
// Review 143's fix sets aside a directory past PATH_MAX that the command
// made: setAside renames it in place, to NAME.turnstile-untrusted (cut to
// fit), and leaves what it holds as it was: the repository below it keeps
// its config, HEAD and hooks. The next command cd's down the chain by
// whatever names it has now (cd L*: the set-aside directory's new name
// starts as the old one did) and moves the repository to sub/; its check
// (a process of its own: no earlier walk) goes by the times alone, and
// the repository's files keep the first command's. This is review 143's
// TestAttack143_LongPathLaunderedRepository with the second command
// following the set-aside name instead of the original one.
//
// Control ("control-short-names"): the same two commands with 1-byte
// names: the first check reaches the repository and sets its HEAD and
// config aside; the person's git status in sub runs nothing.
func TestAttack144_LongPathSetAsideReentered(t *testing.T) {
	for _, c := range []struct {
		name string
		n    int
	}{{"control-short-names", 1}, {"long-names", 250}} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			t.Cleanup(func() { exec.Command("rm", "-rf", f.ws).Run() }) // paths past PATH_MAX
			newProcess := func() {
				plantMemos.Lock()
				plantMemos.m = map[string]*rootMemo{}
				plantMemos.Unlock()
			}
			name := strings.Repeat("L", c.n)
			down := `W=$PWD; i=0; while [ $i -lt 17 ]; do mkdir -p ` + name + ` && cd ` + name + ` || exit 1; i=$((i+1)); done; `
			bash := func(script string) *Result {
				t.Helper()
				r, err := run(t, f.s, SpawnRequest{Argv: []string{"/bin/bash", "-c", script}}, nil)
				if err != nil {
					t.Fatalf("run: %v", err)
				}
				return r
			}
			newProcess()
			r := bash(agentGit + "init -q evil && " + f.fsmonitor() + " >> evil/.git/config && " + down +
				`mv "$W/evil" ./evil && cd "$W" && t=$(date +%s); while [ "$(date +%s)" = "$t" ]; do :; done; echo planted`)
			attackReport(t, "first", r)
			if !strings.Contains(string(r.Stdout), "planted") {
				t.Fatalf("premise: the first command failed (%d): %s", r.ExitCode, r.Stderr)
			}
			if c.n == 1 {
				if len(r.Quarantined) == 0 {
					t.Fatalf("control: the first check did not set the repository aside")
				}
			} else if !setAsidePastPathMax(r) {
				t.Fatalf("premise: the first check did not set aside the directory past PATH_MAX (review 143's fix): %+v %v", r.Quarantined, r.CheckLimits)
			}
			// The second command: down by the names there now, the
			// repository moved up.
			newProcess()
			r2 := bash(`W=$PWD; i=0; while [ $i -lt 17 ]; do cd ` + name[:1] + `* || exit 1; i=$((i+1)); done; mv evil "$W/sub" && echo moved`)
			attackReport(t, "second", r2)
			if !strings.Contains(string(r2.Stdout), "moved") {
				// The fix: the first check moved the deep directory to the
				// top of the root and judged what it holds there.
				if hoisted := hoistedPastPathMax(r); c.n > 1 && hoisted != "" {
					if !exists(hoisted + "/evil") {
						t.Fatalf("premise: the repository is not in the moved directory %s", hoisted)
					}
					attackHostStatus(t, f, hoisted+"/evil")
					return
				}
				t.Fatalf("premise: the second command failed (%d): %s", r2.ExitCode, r2.Stderr)
			}
			attackHostStatus(t, f, f.ws+"/sub")
		})
	}
}

// hoistedPastPathMax is where r's check moved a directory past PATH_MAX
// to ("" when it moved none).
func hoistedPastPathMax(r *Result) string {
	for _, q := range r.Quarantined {
		if strings.Contains(q.Reason, "PATH_MAX") && strings.Contains(q.MovedTo, "turnstile-deep") {
			return q.MovedTo
		}
	}
	return ""
}
