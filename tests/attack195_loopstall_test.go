package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestAttack195_OneTurnsStopStallsAnotherTurnsStop: an instance stops the
// commands of a turn ended elsewhere from one loop (cmd/turnstile
// stopEndedRuns), turn after turn, and each StopRuns now waits for the
// command's leader to exit, at most 5 s per stop (review 194's wait). One
// agent's command whose leader takes long to exit (it releases an unlinked
// file of many extents: TestAttack195_StopWaitOutlastedBySlowLeaderExit)
// holds the loop for those 5 s: another turn (another workspace's, another
// person's) ended meanwhile keeps its command running on this instance
// though the instance's read models already show it ended. With many such
// turns ended at once (an agent may end its own turns, and a turn starts up
// to 256 children) the stall adds up, 5 s each.
// Here: instances A and B on one store; B runs X's slow command and Y's
// command (a loop appending to Y's workspace, in its process group). A
// interrupts X; once X's leader has its kill, A interrupts Y. B's read model
// shows Y interrupted, and Y's command keeps appending a second after that.
// Control: the same with X's leader exiting at once: Y's command stops
// appending within that second.
func TestAttack195_OneTurnsStopStallsAnotherTurnsStop(t *testing.T) {
	nr := map[string]int{"amd64": 285, "arm64": 47}[runtime.GOARCH]
	if nr == 0 {
		t.Skip("fallocate's syscall number is known here for amd64 and arm64 only")
	}
	p := miStartPair(t)
	for _, extents := range []int{16, 120000} {
		slow := extents > 1000
		name := "control_small_file"
		if slow {
			name = "file_of_many_extents"
		}
		t.Run(name, func(t *testing.T) {
			rx, ry := workspace(t), workspace(t)
			var st syscall.Statfs_t
			if err := syscall.Statfs(rx, &st); err != nil || st.Type != 0xEF53 {
				t.Skipf("the workspace is not on ext4 (statfs type %#x, %v)", st.Type, err)
			}
			x, y := "stallx-"+name, "stally-"+name
			for _, c := range []struct{ id, ws, root string }{{x, "w-agent", rx}, {y, "w-other", ry}} {
				miCall(t, p.A, "POST", "/v1/turns", map[string]any{"turn_id": c.id, "workspace_id": c.ws, "thread_id": "t-" + c.id, "workspace_root": c.root,
					"permission_profile": map[string]any{"mode": "full_access"}}, http.StatusCreated, nil)
			}
			stamp := time.Now().UnixNano()
			leaderToken, yToken := fmt.Sprintf("turnstile-a195x-%d", stamp), fmt.Sprintf("turnstile-a195y-%d", stamp)
			ready := filepath.Join(rx, "ready")
			xs := fmt.Sprintf(`cd %s && exec perl -e 'open(my $f, "+>", "big") or die "open: $!"; my $fd = fileno($f); for my $i (0..%d) { syscall(%d, $fd, 0, $i*8192, 4096) == 0 or die "fallocate: $!" } unlink "big"; open(R, ">", "%s"); close R; sleep 600' %s`,
				rx, extents-1, nr, ready, leaderToken)
			ticks := filepath.Join(ry, "ticks")
			ys := fmt.Sprintf(`while :; do echo x >> %s; sleep 0.02; done; : %s`, ticks, yToken)
			xAnswer := execInBackground(p.B, x, map[string]any{"tool_call_id": "run", "argv": []string{"sh", "-c", xs}, "timeout_ms": 180000})
			yAnswer := execInBackground(p.B, y, map[string]any{"tool_call_id": "run", "argv": []string{"sh", "-c", ys}, "timeout_ms": 180000})
			var leader string
			pollUntil(t, "both commands to run on B", func() bool {
				if ls := hostProcessesWith(leaderToken); len(ls) == 1 {
					leader = ls[0]
				}
				return leader != "" && exists(ready) && exists(ticks) && len(hostProcessesWith(yToken)) > 0
			})
			// A interrupts X; B's loop kills X's leader and waits.
			miCall(t, p.A, "POST", "/v1/turns/"+x+"/interrupt", nil, http.StatusOK, nil)
			pollUntil(t, "X's leader to be killed on B", func() bool {
				raw, err := os.ReadFile("/proc/" + leader + "/cmdline")
				return err != nil || !strings.Contains(string(raw), leaderToken)
			})
			// Then A interrupts Y, and B's read models learn of it.
			miCall(t, p.A, "POST", "/v1/turns/"+y+"/interrupt", nil, http.StatusOK, nil)
			pollUntil(t, "B's read model to show Y interrupted", func() bool {
				var tr turnAnswer
				status, raw, err := miDo(p.B, "GET", "/v1/turns/"+y, nil)
				return err == nil && status == http.StatusOK && jsonInto(raw, &tr) && tr.Turn.Status == "interrupted"
			})
			known := time.Now()
			size := func() int64 { fi, _ := os.Stat(ticks); return fi.Size() }
			// Still appending a second after B knew Y had ended?
			var last time.Time
			prev := size()
			for time.Since(known) < 2*time.Second {
				if s := size(); s != prev {
					prev, last = s, time.Now()
				}
				if last.Sub(known) > time.Second {
					break
				}
				time.Sleep(5 * time.Millisecond) // polling a state, not standing in for it
			}
			awaitExec(t, xAnswer, "X's exec did not return")
			awaitExec(t, yAnswer, "Y's exec did not return")
			if last.IsZero() {
				t.Logf("Y's command appended nothing once B's read model showed Y interrupted")
			} else {
				t.Logf("Y's command last appended %v after B's read model showed Y interrupted", last.Sub(known).Round(time.Millisecond))
			}
			if last.Sub(known) > time.Second {
				t.Errorf("Y's command (another workspace's turn) kept appending to its workspace %v after B's read model showed Y interrupted: B's stop loop was waiting on X's command", last.Sub(known).Round(time.Millisecond))
			}
		})
	}
}

// jsonInto decodes raw into out and reports whether it could.
func jsonInto(raw []byte, out any) bool { return json.Unmarshal(raw, out) == nil }
