package tests

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestAttack24KilledServerLeavesItsCopies: a command's helper is started
// with user-namespace id maps (sandbox/fullaccess_plan.go, run.go), so the
// child Go forks waits, before it execs, on a pipe for the server to write
// its maps; and forks are no longer serialised (Go's ForkLock lets
// concurrent forks through), so children forked at the same moment inherit
// each other's pipes (close-on-exec closes them only at the exec none of
// them has reached). When the server dies between a fork and the maps (the
// OOM killer, which the agent can bring, TestAttack24UnreadExecAnswersHoldMemory;
// a kill -9; a service manager's stop timeout) while it spawns many
// commands at once, those children wait for each other forever: nothing
// sets a parent-death signal on them, and they are PID 1 of their own
// namespace. Each is a copy of the server before exec, holding every
// descriptor it had: the API's listening socket (the port stays bound,
// connections queue in a backlog nobody serves) and the event store's
// LOCK (flock) and segments; and the helpers already started wait on them.
// So the server cannot be started again: "store is in use by another
// process" and "address already in use", until someone finds and kills
// the copies by hand. Once they are killed, the helpers that waited on
// them go on and exec their commands, with no server left to stop them
// (a `sleep 600` of a full_access turn ran on unsupervised). Seen first as 6
// copies and 19 helpers left by one killed server of
// TestAttack24ConcurrentExecsExhaustTheServer (the copies' pipes: each
// read one whose write ends only later-forked copies held, the last two
// each other's). Wanted:
// a helper's child cannot outlive the server before its exec (a parent
// death signal set before the wait, spawns with id maps serialised, or
// forks from a small process that holds none of the server's descriptors),
// and the server's own descriptors never reach a child.
// Control: the server starts again on the same data directory and port.
func TestAttack24KilledServerLeavesItsCopies(t *testing.T) {
	// A kill lands between a fork and its maps by chance: about one round
	// in two left copies here (2 slow cores). Three rounds, some 12 s each;
	// TURNSTILE_ORPHAN_ROUNDS=N tries N.
	rounds, _ := strconv.Atoi(os.Getenv("TURNSTILE_ORPHAN_ROUNDS"))
	if rounds <= 0 {
		rounds = 3
	}
	for round := 1; round <= rounds; round++ {
		if killedMidSpawn(t, round) > 0 {
			return
		}
	}
}

// killedMidSpawn starts a server of 1,024 descriptors, has the agent spawn
// 200 long commands in 40 turns at once (its table's edge), kills the
// server outright once they stopped starting, and reports how many processes then still hold its store's lock
// (failing the test when any does).
func killedMidSpawn(t *testing.T, round int) int {
	wrapper := nofileBin(t, 1024)
	s := StartServerBin(t, wrapper, "")
	agent := roAs(s, s.credential("agent", "runtime"))
	root := workspace(t)
	const turns = 40
	for i := range turns {
		agent.startTurn(fmt.Sprintf("k-%d", i), "ws", "full_access", root)
	}
	lock := filepath.Join(s.Data, "events", "LOCK")
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 200}}
	var wg sync.WaitGroup
	var answered atomic.Int64
	stop := make(chan struct{})
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for try := range 3 {
				select {
				case <-stop:
					return
				default:
				}
				body := fmt.Sprintf(`{"tool_call_id":"k-%d-%d","argv":["/bin/sh","-c","touch started.%d; exec sleep 600"],"timeout_ms":600000}`, i, try, i)
				req, _ := http.NewRequest("POST", s.URL+fmt.Sprintf("/v1/turns/k-%d/exec", i%turns), strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+agent.Token)
				resp, err := client.Do(req)
				if err != nil {
					return
				}
				resp.Body.Close()
				answered.Add(1)
				if resp.StatusCode != http.StatusServiceUnavailable {
					return
				}
			}
		}()
	}
	// Killed at the descriptor table's edge, where spawns fail and are
	// retried: once no new command started for 40 polls.
	settledStarts(root, 0)
	// SIGKILL, and not s.Kill, which waits for the server's output to
	// close: the copies hold it.
	s.cmd.Process.Kill()
	pid := s.cmd.Process.Pid
	pollUntil(t, "the killed server's descriptors closed", func() bool {
		fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		return len(fds) == 0
	})
	// A copy cloned as the server died ends itself once it sees its
	// parent gone (its parent-death check, before exec): the holders are
	// read until none is left, or the hang guard passes (a copy waiting on
	// a sibling's id-map pipe waits forever: the hole).
	holders := lockHolders(lock)
	for guard := time.Now().Add(30 * time.Second); len(holders) > 0 && time.Now().Before(guard); holders = lockHolders(lock) {
		time.Sleep(20 * time.Millisecond)
	}
	// The copies, and what waits on them (helpers, and the commands they
	// run once the copies are gone: a process in the workspace), are
	// killed by their pids, so that the test leaves none.
	for range 3 {
		for pid := range holders {
			if p, err := os.FindProcess(pid); err == nil {
				p.Kill()
			}
		}
		for pid := range inDir(root) {
			if p, err := os.FindProcess(pid); err == nil {
				p.Kill()
			}
		}
		time.Sleep(100 * time.Millisecond) // the helpers released exec their commands
	}
	s.Kill()
	close(stop)
	client.CloseIdleConnections()
	wg.Wait()
	if len(holders) > 0 {
		var one string
		for _, c := range holders {
			one = c
			break
		}
		t.Errorf("round %d: after the server was killed while it spawned commands, %d processes still hold its store's lock (and its listening socket): copies of the server that never reached their exec, such as %.200q; want none", round, len(holders), one)
	} else {
		t.Logf("round %d: no copy left", round)
	}
	// Control: the server starts again on the same data directory.
	s.start()
	s.Kill()
	return len(holders)
}

// lockHolders lists the processes that hold path open, by pid.
func lockHolders(path string) map[int]string {
	holders := map[int]string{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		for _, fd := range fds {
			if l, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); l == path {
				cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
				holders[pid] = strings.ReplaceAll(string(cmdline), "\x00", " ")
				break
			}
		}
	}
	return holders
}

// inDir lists the processes whose working directory is dir.
func inDir(dir string) map[int]bool {
	out := map[int]bool{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if l, _ := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid)); l == dir {
			out[pid] = true
		}
	}
	return out
}
