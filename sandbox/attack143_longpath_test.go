package sandbox

import (
	"os/exec"
	"strings"
	"testing"
)

// TestAttack143_LongPathLaunderedRepository (review 143, medium: the
// person's next git status runs the agent's program; `turnstile sandbox`,
// and the first command after a server starts). The check after a command
// reaches each directory by its path below the root (visit's Fstatat of
// the child, plantWalk.open's openat2), and a path longer than PATH_MAX
// cannot be looked up (ENAMETOOLONG): visit skips such a child silently
// (`continue`), naming no limit. A command (bash, which cd's down one
// level at a time) builds a chain of 17 directories of 250-byte names (a
// path of 4,267 bytes) and moves into it a repository it made with a
// core.fsmonitor program: its check says nothing (no quarantine, no
// limit). The next command cd's down and moves the repository to sub/:
// its config, HEAD and hooks keep the first command's times, and the
// check of a `turnstile sandbox` command (a process of its own: no
// earlier walk of the root, so no "unseen" repository and no "moved"
// directory: plantwalk.go) goes by the times alone: it says nothing
// either. The person's next git status in sub runs the agent's program.
// (In one server process the second check holds: the repository is one
// no earlier walk saw.)
//
// Each command is a `turnstile sandbox` process of its own: the walks'
// memory (plantMemos) is emptied before each, as a new process starts
// with none. The first command ends in a later second than its writes.
//
// Control ("control-short-names"): the same two commands with 1-byte
// names: the first check reaches the repository and sets it aside; the
// person's git status in sub runs nothing.
func TestAttack143_LongPathLaunderedRepository(t *testing.T) {
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
			// The first command: the repository, moved down the chain;
			// it ends in a later second than its writes (so that the
			// next command's check finds them older than its start).
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
			// The second command: the repository moved back up.
			newProcess()
			r2 := bash(down + `mv evil "$W/sub" && echo moved`)
			attackReport(t, "second", r2)
			if !strings.Contains(string(r2.Stdout), "moved") && !(c.n > 1 && setAsidePastPathMax(r)) {
				t.Fatalf("premise: the second command failed (%d): %s", r2.ExitCode, r2.Stderr)
			}
			if c.n == 1 {
				if len(r.Quarantined) == 0 {
					t.Errorf("control: the first check did not set the repository aside: %+v", r.Quarantined)
				}
				attackHostStatus(t, f, f.ws+"/sub")
				return
			}
			if !exists(f.ws+"/sub/.git/HEAD") && setAsidePastPathMax(r) {
				attackHostStatus(t, f, f.ws) // the first check set the chain aside: nothing reached sub
				return
			}
			if !exists(f.ws + "/sub/.git/HEAD") {
				t.Fatalf("premise: sub/.git/HEAD is not there (set aside: %v %v)", quarantined(r), quarantined(r2))
			}
			if len(r2.Quarantined) == 0 && len(r2.CheckLimits) == 0 {
				t.Errorf("ESCAPED: the second command moved a repository with a core.fsmonitor program to sub/ and its check said nothing (first check's limits: %v)", r.CheckLimits)
			}
			attackHostStatus(t, f, f.ws+"/sub")
		})
	}
}
