package tests

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestAttack195_SecondStopDoesNotWait: engine.run.stop hands out the waits
// the runner registered (OnStop) to the first stopping call only; a later
// one finds the run stopped and returns at once (rn.stopped: "return nil").
// A narrowing change stops the agent's command and waits for its processes
// (here the leader takes long to exit: it releases an unlinked file of many
// extents, TestAttack195_StopWaitOutlastedBySlowLeaderExit); meanwhile the
// person interrupts the turn. The interrupt returns at once, before the
// stop that is still waiting, while the command's setsid daemon is alive and
// appending to the workspace: the interrupt's promise ("returns once the
// command's processes can act no more") does not hold for a command that
// another stop is already stopping — whatever bound the wait has.
// Control: the same sequence with a leader that exits at once (the first
// stop's wait has returned): once the interrupt returns, the daemon is gone.
func TestAttack195_SecondStopDoesNotWait(t *testing.T) {
	nr := map[string]int{"amd64": 285, "arm64": 47}[runtime.GOARCH]
	if nr == 0 {
		t.Skip("fallocate's syscall number is known here for amd64 and arm64 only")
	}
	s := StartServer(t, "")
	for _, extents := range []int{16, 120000} {
		slow := extents > 1000
		name := "control_small_file"
		if slow {
			name = "file_of_many_extents"
		}
		t.Run(name, func(t *testing.T) {
			root := workspace(t)
			var st syscall.Statfs_t
			if err := syscall.Statfs(root, &st); err != nil || st.Type != 0xEF53 {
				t.Skipf("the workspace is not on ext4 (statfs type %#x, %v)", st.Type, err)
			}
			id := "attack195-second-" + name
			s.startTurn(id, "ws", "auto_accept_edits", root)
			stamp := time.Now().UnixNano()
			token, leaderToken := fmt.Sprintf("turnstile-attack195d-%d", stamp), fmt.Sprintf("turnstile-attack195l-%d", stamp)
			ticks, ready := filepath.Join(root, "ticks"), filepath.Join(root, "ready")
			script := fmt.Sprintf(`setsid sh -c 'while :; do echo x >> %s; sleep 0.02; done; : %s' </dev/null >/dev/null 2>&1 &
exec perl -e 'open(my $f, "+>", "big") or die "open: $!"; my $fd = fileno($f); for my $i (0..%d) { syscall(%d, $fd, 0, $i*8192, 4096) == 0 or die "fallocate: $!" } unlink "big"; open(R, ">", "%s"); close R; sleep 600' %s`,
				ticks, token, extents-1, nr, ready, leaderToken)
			body := map[string]any{"tool_call_id": "run", "argv": []string{"sh", "-c", script}, "timeout_ms": 180000}
			status, first := s.exec(id, "", body)
			if status != http.StatusAccepted || first.Request == nil {
				t.Fatalf("exec: %d %+v, want 202 ask", status, first)
			}
			s.respond(first.Request.RequestID, "allow_once")
			answer := execInBackground(s, id, body)
			var leader string
			pollUntil(t, "the command to get ready", func() bool {
				if ls := hostProcessesWith(leaderToken); len(ls) == 1 {
					leader = ls[0]
				}
				return leader != "" && exists(ready) && exists(ticks) && len(hostProcessesWith(token)) > 0
			})
			// The person narrows the turn (supervised): its stop kills
			// the leader's group and waits.
			narrowed := make(chan time.Time, 1)
			go func() {
				status, raw := s.changePermissions(id, map[string]any{"mode": "supervised"})
				if status != http.StatusOK {
					t.Errorf("narrow: %d %s", status, raw)
				}
				narrowed <- time.Now()
			}()
			// The leader got its kill: its memory is gone (an empty
			// command line), its pid not yet.
			pollUntil(t, "the leader to be killed", func() bool {
				raw, err := os.ReadFile("/proc/" + leader + "/cmdline")
				return err != nil || !strings.Contains(string(raw), leaderToken)
			})
			// Then the person interrupts it.
			start := time.Now()
			if status, raw := s.Do("POST", "/v1/turns/"+id+"/interrupt", nil); status != http.StatusOK {
				t.Fatalf("interrupt: %d %s", status, raw)
			}
			took := time.Since(start)
			narrowPending := len(narrowed) == 0
			size := func() int64 { fi, _ := os.Stat(ticks); return fi.Size() }
			alive := hostProcessesWith(token)
			before := size()
			grew := false
			for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline) && len(alive) > 0; {
				if size() > before {
					grew = true
					break
				}
				time.Sleep(5 * time.Millisecond) // polling a state, not standing in for it
			}
			awaitExec(t, answer, "the exec did not return after the stops")
			n := <-narrowed
			t.Logf("the interrupt returned after %v (the narrowing's stop still waiting: %v, it returned %v after the interrupt had); leader %s", took.Round(time.Millisecond), narrowPending, n.Sub(start.Add(took)).Round(time.Millisecond), strconv.Quote(leader))
			if len(alive) > 0 || grew {
				t.Errorf("the interrupt returned (%v) while the narrowing's stop of the same command still waited (%v), and the command's daemon was alive (%v) and appended to the workspace (%v)", took.Round(time.Millisecond), narrowPending, alive, grew)
			}
			pollUntil(t, "every process of the command to die", func() bool { return len(hostProcessesWith(token)) == 0 })
		})
	}
}
