package tests

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// TestAttack195_InterruptReturnsWhileDaemonActs: the server's path of the
// sandbox test TestAttack195_StopWaitOutlastedBySlowLeaderExit. The agent's
// command (auto_accept_edits, approved once) starts a setsid daemon that
// appends to a file of the workspace, and its leader holds the last
// descriptor of an unlinked file of some 120,000 extents (fallocate: no
// data written). The person interrupts the turn: the engine's stop kills
// the leader's process group and waits for the leader's exit, at most 5 s;
// the leader spends about 10 s releasing that file before the kernel reaps
// its PID namespace, so the interrupt returns while the daemon is alive and
// still appending to the workspace. Control: the same command with a small
// file; once the interrupt returns, the daemon is gone and appends nothing.
func TestAttack195_InterruptReturnsWhileDaemonActs(t *testing.T) {
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
			id := "attack195-" + name
			s.startTurn(id, "ws", "auto_accept_edits", root)
			token := fmt.Sprintf("turnstile-attack195-%d", time.Now().UnixNano())
			ticks, ready := filepath.Join(root, "ticks"), filepath.Join(root, "ready")
			script := fmt.Sprintf(`setsid sh -c 'while :; do echo x >> %s; sleep 0.02; done; : %s' </dev/null >/dev/null 2>&1 &
exec perl -e 'open(my $f, "+>", "big") or die "open: $!"; my $fd = fileno($f); for my $i (0..%d) { syscall(%d, $fd, 0, $i*8192, 4096) == 0 or die "fallocate: $!" } unlink "big"; open(R, ">", "%s"); close R; sleep 600'`,
				ticks, token, extents-1, nr, ready)
			body := map[string]any{"tool_call_id": "run", "argv": []string{"sh", "-c", script}, "timeout_ms": 180000}
			status, first := s.exec(id, "", body)
			if status != http.StatusAccepted || first.Request == nil {
				t.Fatalf("exec: %d %+v, want 202 ask", status, first)
			}
			s.respond(first.Request.RequestID, "allow_once")
			answer := execInBackground(s, id, body)
			pollUntil(t, "the command to get ready", func() bool {
				return exists(ready) && exists(ticks) && len(hostProcessesWith(token)) > 0
			})
			start := time.Now()
			if status, raw := s.Do("POST", "/v1/turns/"+id+"/interrupt", nil); status != http.StatusOK {
				t.Fatalf("interrupt: %d %s", status, raw)
			}
			took := time.Since(start)
			// The interrupt has returned: is the command's daemon still
			// appending to the workspace?
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
			d := awaitExec(t, answer, "the exec did not return after the interrupt")
			t.Logf("the interrupt returned after %v; the exec %v after it: %q", took.Round(time.Millisecond), time.Since(start).Round(time.Millisecond), d.Message)
			if len(alive) > 0 || grew {
				t.Errorf("after the interrupt had returned (%v), the command's daemon was alive (%v) and appended to the workspace (%v)", took.Round(time.Millisecond), alive, grew)
			}
			pollUntil(t, "every process of the command to die", func() bool { return len(hostProcessesWith(token)) == 0 })
		})
	}
}
