package sandbox

import (
	"os/exec"
	"strings"
	"testing"
)

// TestAttack144_LongPathOldBoundary (review 144, medium: the person's next
// git status runs the agent's program; `turnstile sandbox`). Review 143's
// fix (plantwalk.go pastPathMax) sets aside a directory past PATH_MAX only
// when the command made or changed it (its change time); an older one is
// only named in the limits, and nothing below it is looked at. But a
// directory's path grows past PATH_MAX without its change time moving: a
// rename of a directory ABOVE it changes that one's, not its. So:
//
//  1. command 1 makes a chain a/D1/.../Dn/c whose every path is below
//     PATH_MAX (walked whole, nothing in it) and ends a second later;
//  2. command 2 renames a to a 250-byte name, which pushes Dn past PATH_MAX
//     with Dn's change time from command 1, and moves into c (below Dn,
//     changing c, not Dn) a repository with a core.fsmonitor program; its
//     check names Dn in its limits as an OLD directory and sets nothing
//     aside; it ends a second later;
//  3. command 3 renames the top back and moves the repository to sub/: its
//     check (a process of its own, no earlier walk) goes by the times
//     alone, and the repository's files keep command 2's.
//
// The person's next git status in sub runs the agent's program.
//
// Control ("control-no-rename"): the same three commands without the
// renames of the top: command 2's check reaches c and sets the repository
// aside.
func TestAttack144_LongPathOldBoundary(t *testing.T) {
	for _, rename := range []bool{false, true} {
		name := "control-no-rename"
		if rename {
			name = "rename-above"
		}
		t.Run(name, func(t *testing.T) {
			f := newPlantFixture(t)
			t.Cleanup(func() { exec.Command("rm", "-rf", f.ws).Run() }) // paths past PATH_MAX
			newProcess := func() {
				plantMemos.Lock()
				plantMemos.m = map[string]*rootMemo{}
				plantMemos.Unlock()
			}
			// The chain: a/D1/.../Dn/c, Dn's path 3,950 bytes with "a"
			// (below PATH_MAX), 4,199 with a 250-byte top (past it);
			// D(n-1)'s 3,948 then.
			L := len(f.ws)
			n := 16
			m := 3950 - L - 3 - 251*(n-1)
			for m > 250 {
				n++
				m -= 251
			}
			if m < 1 {
				t.Fatalf("premise: workspace path too long (%d)", L)
			}
			dirs := []string{strings.Repeat("M", m)}
			for i := 1; i < n; i++ {
				dirs = append(dirs, strings.Repeat("D", 250))
			}
			chain := strings.Join(dirs, "/")
			if got := L + 2 + len(chain) + 1; got != 3950 {
				t.Fatalf("premise: Dn's path is %d bytes", got)
			}
			top := "a"
			long := strings.Repeat("A", 250)
			cdDown := func(first string) string {
				s := "cd " + first + " || exit 1; "
				for _, d := range dirs {
					s += "cd " + d + " || exit 1; "
				}
				return s + "cd c || exit 1; "
			}
			nextSecond := `t=$(date +%s); while [ "$(date +%s)" = "$t" ]; do :; done; `
			bash := func(script string) *Result {
				t.Helper()
				r, err := run(t, f.s, SpawnRequest{Argv: []string{"/bin/bash", "-c", script}}, nil)
				if err != nil {
					t.Fatalf("run: %v", err)
				}
				return r
			}
			// 1: the chain, clean.
			newProcess()
			r1 := bash(`W=$PWD; mkdir -p ` + top + "/" + chain + `/c && ` + nextSecond + `echo made`)
			attackReport(t, "first", r1)
			if !strings.Contains(string(r1.Stdout), "made") || len(r1.Quarantined) != 0 {
				t.Fatalf("premise: the first command (%d): %s %+v", r1.ExitCode, r1.Stderr, r1.Quarantined)
			}
			// 2: the top renamed (or not), the repository moved into c.
			first := top
			mv := ""
			if rename {
				first, mv = long, "mv "+top+" "+long+" && "
			}
			newProcess()
			r2 := bash(`W=$PWD; ` + mv + agentGit + "init -q evil && " + f.fsmonitor() + " >> evil/.git/config && " +
				cdDown(first) + `mv "$W/evil" ./evil && cd "$W" && ` + nextSecond + `echo planted`)
			attackReport(t, "second", r2)
			if !strings.Contains(string(r2.Stdout), "planted") {
				t.Fatalf("premise: the second command (%d): %s", r2.ExitCode, r2.Stderr)
			}
			// 3: the top named back, the repository moved up.
			back := ""
			if rename {
				back = "mv " + long + " " + top + " && "
			}
			newProcess()
			r3 := bash(back + `mv ` + top + "/" + chain + `/c/evil sub && echo moved`)
			attackReport(t, "third", r3)
			if !rename {
				if len(r2.Quarantined) == 0 {
					t.Errorf("control: the second check did not set the repository in c aside: limits %v", r2.CheckLimits)
				}
				attackHostStatus(t, f, f.ws)
				return
			}
			if setAsidePastPathMax(r2) {
				t.Logf("the second check set aside what is past PATH_MAX: %+v", r2.Quarantined)
				return
			}
			if !strings.Contains(string(r3.Stdout), "moved") || !exists(f.ws+"/sub/.git/config") {
				t.Fatalf("premise: the third command (%d): %s", r3.ExitCode, r3.Stderr)
			}
			if len(r2.Quarantined) == 0 && len(r3.Quarantined) == 0 {
				t.Errorf("ESCAPED: the second command changed a directory below one past PATH_MAX (a repository with a core.fsmonitor program) and its check set nothing aside (limits: %v); the third moved it to sub/ and its check set nothing aside either (limits: %v)", r2.CheckLimits, r3.CheckLimits)
			}
			attackHostStatus(t, f, f.ws+"/sub")
		})
	}
}
