package tests

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// serverCPUTicks is the user and system time (clock ticks) the server's
// own threads have used (1/100 s each here): its children's are not
// counted.
func serverCPUTicks(t *testing.T, s *Server) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64) // utime, field 14
	k, _ := strconv.ParseInt(f[12], 10, 64) // stime, field 15
	return u + k
}

// TestAttack26RootNamesCostEverySpawn: before each restricted command and
// in the check after it, the server lists the top of every writable root
// in full and matches every name against the VS Code and mise file
// patterns (workspaceFiles: filepath.Match of "*.code-workspace",
// "mise.*.toml", ... per name, whose '*' makes each match cost the name's
// length), whether or not the directory changed since the last command.
// So the work is the server's, outside every limit of the command, and
// grows with the number and the length of the names: a command that
// leaves 100,000 names of 240 bytes at the top of its workspace (a few
// seconds, 100,000 inodes) makes each later command of any turn over that
// workspace cost the server's own threads seconds of CPU (about 27 µs a
// name here: a million names, half a minute a spawn), so that a few
// commands at once hold the server's cores and every other client's
// decisions wait. The README says a server lists a directory again only
// when it changed, about 4 µs a directory. Wanted: a spawn's cost to the
// server does not grow with what the command left in one directory
// (listed once while unchanged, the names matched cheaply or bounded).
// Control: a spawn of the same server over a small workspace costs it
// little. The measure is the server process's CPU time, the work done,
// with a wide margin (2 s for one spawn, and 20 times the control's: the
// cost the twenty-sixth review measured was 2.7 s for these names, and on
// this machine on 2026-12-06 a spawn there cost 0.7–1.2 s, main's code
// and the next change's alike, which the margin of 1 s let fail now and
// then: what is left grows with the names still, the walks of the root's
// top each spawn, about 8 µs a name).
func TestAttack26RootNamesCostEverySpawn(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	small, big := workspace(t), workspace(t)
	s.startTurn("c26", "ws", "auto_accept_edits", small)
	s.startTurn("n26", "ws", "auto_accept_edits", big)

	// One spawn each first: the binaries, the idmaps and the views are warm.
	s.execApproved("c26", "warm", map[string]any{"argv": []string{"true"}})
	fill := s.execApproved("n26", "fill", map[string]any{"timeout_ms": 600000, "argv": []string{"sh", "-c",
		`seq 100000 | sed "s/^/$(printf 'x%.0s' $(seq 240))/" | xargs touch && ls | grep -c '^xxx'`}})
	if fill.Result == nil || fill.Result.ExitCode != 0 || strings.TrimSpace(fill.Result.Stdout) != "100000" {
		t.Fatalf("the command's names: %+v", fill.Result)
	}

	spawn := func(turn, call string) int64 {
		t.Helper()
		before := serverCPUTicks(t, s)
		d := s.execApproved(turn, call, map[string]any{"timeout_ms": 600000, "argv": []string{"true"}})
		if d.Result == nil || d.Result.ExitCode != 0 {
			t.Fatalf("%s: %+v", call, d.Result)
		}
		return serverCPUTicks(t, s) - before
	}
	ctl := spawn("c26", "ctl")
	cost := spawn("n26", "after")
	t.Logf("server CPU for one spawn: %d ticks over a small workspace, %d over 100,000 names", ctl, cost)
	if cost >= 200 && cost >= 20*max(ctl, 2) {
		t.Fatalf("one spawn of `true` in a workspace whose top holds 100,000 names of 240 bytes cost the server's own threads %d.%02d s of CPU (a small workspace's: %d ticks): the names a command leaves bill every later spawn to the server", cost/100, cost%100, ctl)
	}
}
