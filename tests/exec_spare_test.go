package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// spareHelpers returns the server's children that run the lean helper
// (spares waiting for a plan, or helpers of running commands).
func spareHelpers(t *testing.T, server int) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		exe, _ := os.Readlink("/proc/" + e.Name() + "/exe")
		if len(f) > 1 && f[1] == strconv.Itoa(server) && filepath.Base(exe) == "turnstile-sandbox" {
			out = append(out, pid)
		}
	}
	return out
}

// startTime is field 22 of a process's stat (clock ticks since boot: the
// same in every PID namespace).
func startTime(t *testing.T, stat string) string {
	t.Helper()
	f := strings.Fields(stat[strings.LastIndexByte(stat, ')')+1:])
	if len(f) < 20 {
		t.Fatalf("stat %q", stat)
	}
	return f[19]
}

// TestExecRunsInTheSpareHelper: a server keeps a spare helper after a
// restricted command (a child running turnstile-sandbox, waiting), and
// the next exec, from another working directory, runs in it: the command's
// own process (PID 1 of its namespace) started when the spare did, and a
// new spare waits after it. The command is confined as ever (a write in
// the workspace lands, one outside is refused).
func TestExecRunsInTheSpareHelper(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root, outside := workspace(t), workspace(t)
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	s.startTurn("sp", "ws", "auto_accept_edits", root)
	status, first := s.exec("sp", "", map[string]any{"tool_call_id": "grant", "argv": []string{"/bin/true"}})
	if status != http.StatusAccepted || first.Request == nil {
		t.Fatalf("%d %+v", status, first)
	}
	s.respond(first.Request.RequestID, "allow_for_turn")
	if status, d := s.exec("sp", "", map[string]any{"tool_call_id": "grant", "argv": []string{"/bin/true"}}); status != http.StatusOK || !d.Ran {
		t.Fatalf("%d %+v", status, d)
	}
	server := s.cmd.Process.Pid
	// The spare is started once the command has ended: wait for it.
	waitSpare := func(not int) int {
		deadline := time.Now().Add(30 * time.Second)
		for {
			if ps := spareHelpers(t, server); len(ps) == 1 && ps[0] != not {
				return ps[0]
			}
			if time.Now().After(deadline) {
				t.Fatalf("no spare helper: children %v", spareHelpers(t, server))
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	spare := waitSpare(0)
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(spare) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	d := s.execApproved("sp", "c1", map[string]any{"cwd": filepath.Join(root, "sub"),
		"argv": []string{"sh", "-c", "cat /proc/1/stat; echo $$; pwd; echo in > in.txt; echo x > " + outside + "/x"}})
	if !d.Ran || d.Result == nil {
		t.Fatalf("%+v", d)
	}
	lines := strings.Split(d.Result.Stdout, "\n")
	if len(lines) < 3 || startTime(t, lines[0]) != startTime(t, string(stat)) || lines[1] != "1" || lines[2] != filepath.Join(root, "sub") {
		t.Fatalf("the command did not run in the spare (started %s): %q %s", startTime(t, string(stat)), d.Result.Stdout, d.Result.Stderr)
	}
	if !exists(filepath.Join(root, "sub", "in.txt")) || exists(filepath.Join(outside, "x")) {
		t.Fatalf("workspace write %v, outside write %v", exists(filepath.Join(root, "sub", "in.txt")), exists(filepath.Join(outside, "x")))
	}
	waitSpare(spare)
}
