package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// TestAttack195_StopWaitOutlastedBySlowLeaderExit: review 194's fix has the
// owner's stop (Plan.KillWith's kill, then its wait: what engine.StopRuns,
// a narrowing change and a parent's end call) return once the command's
// leader, its PID namespace's init, has exited, "a PID namespace's init is
// readable only after the kernel killed every process of the namespace".
// But the wait is bounded (ownerStopWait, 5 s) and the command decides how
// long its leader takes to exit: the kernel zaps the namespace in the
// leader's exit_notify, after exit_files and the task work that releases
// its files. A leader that holds the last descriptor of an unlinked file
// with some 120,000 extents (fallocate over every other block: no data
// written, a few hundred MB reserved in its own workspace) spends about 10 s
// in that release on ext4, unkillable. The wait gives up after 5 s, the stop
// returns, and a process the command put in a session of its own (setsid:
// no member of the group the kill reached, alive until the zap) reads what
// the agent sends after the stop returned and writes it into the workspace.
// Control: the same command with a small unlinked file (its leader exits at
// once) reads nothing after the stop; and before the stop the reader reads
// what is written (the channel works). Fixed by the cgroup every command
// now runs in (killgroup.go: its kill reaches every process at once); and,
// the wait with a cgroup bounded at 10 minutes, the stop must return before
// the slow leader has finished exiting (the wait ends once every process has
// begun its exit, killGroup.settled), not only within the bound.
func TestAttack195_StopWaitOutlastedBySlowLeaderExit(t *testing.T) {
	f := requireKernel(t, true)
	nr := map[string]int{"amd64": 285, "arm64": 47}[runtime.GOARCH]
	if nr == 0 {
		t.Skip("fallocate's syscall number is known here for amd64 and arm64 only")
	}
	for _, extents := range []int{16, 120000} {
		slow := extents > 1000
		name := "control: small unlinked file"
		if slow {
			name = "leader releasing a file of many extents"
		}
		t.Run(name, func(t *testing.T) {
			ws := tempWorkspace(t)
			var st syscall.Statfs_t
			if err := syscall.Statfs(ws, &st); err != nil || st.Type != 0xEF53 {
				t.Skipf("the workspace is not on ext4 (statfs type %#x, %v): the release's cost is ext4's", st.Type, err)
			}
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
			fifo, out, ready := filepath.Join(ws, "fifo"), filepath.Join(ws, "out"), filepath.Join(ws, "ready")
			if err := syscall.Mkfifo(fifo, 0o666); err != nil {
				t.Fatal(err)
			}
			// The reader in a session of its own; the leader makes a file
			// of many extents (no data), unlinks it, keeps its descriptor,
			// says it is ready and waits to be killed.
			script := "setsid cat " + fifo + " > " + out + " &\n" +
				"exec perl -e 'open(my $f, \"+>\", \"big\") or die \"open: $!\"; my $fd = fileno($f); " +
				fmt.Sprintf("for my $i (0..%d) { syscall(%d, $fd, 0, $i*8192, 4096) == 0 or die \"fallocate: $!\" } ", extents-1, nr) +
				"unlink \"big\"; open(R, \">\", \"" + ready + "\"); close R; sleep 600'"
			var kill func()
			var planned *Plan
			registered := make(chan struct{})
			type result struct {
				r   *Result
				err error
			}
			done := make(chan result, 1)
			go func() {
				p, err := PlanSpawn(s, SpawnRequest{Argv: []string{"/bin/sh", "-c", script}, TimeoutMs: 180000}, os.Environ())
				if err != nil {
					close(registered)
					done <- result{nil, err}
					return
				}
				p.KillWith(func(k, w func()) func() { kill = func() { k(); w() }; planned = p; close(registered); return func() {} })
				r, err := Run(context.Background(), p)
				done <- result{r, err}
			}()
			<-registered
			if kill == nil {
				o := <-done
				t.Fatalf("plan: %v", o.err)
			}
			var w *os.File
			for i := 0; ; i++ {
				if exists(ready) {
					var err error
					if w, err = os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
						break
					}
				}
				if i > 120000 {
					kill()
					o := <-done
					t.Fatalf("setup: the command never got ready: %+v %v", o.r, o.err)
				}
				time.Sleep(time.Millisecond) // polling a state, not standing in for it
			}
			defer w.Close()
			w.Write([]byte("before\n"))
			for i := 0; ; i++ {
				b, _ := os.ReadFile(out)
				if strings.Contains(string(b), "before") {
					break
				}
				if i > 20000 {
					kill()
					t.Fatal("setup: the reader never wrote what it read before the stop")
				}
				time.Sleep(time.Millisecond) // polling a state, not standing in for it
			}
			// The person's interrupt: the owner's kill and wait return;
			// then the agent writes.
			// The leader (the helper's pid, the group's id), to see
			// whether it had exited when the stop returned.
			planned.stop.mu.Lock()
			leader := planned.stop.pgid
			planned.stop.mu.Unlock()
			pidfd, err := unix.PidfdOpen(leader, 0)
			if err != nil {
				t.Fatalf("pidfd of the leader %d: %v", leader, err)
			}
			defer unix.Close(pidfd)
			start := time.Now()
			kill()
			took := time.Since(start)
			n, _ := unix.Poll([]unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}, 0)
			leaderExited := n > 0
			w.Write([]byte("after-the-stop\n"))
			w.Close()
			o := <-done
			WaitCleanup()
			if o.r == nil {
				t.Fatalf("run: %v", o.err)
			}
			b, _ := os.ReadFile(out)
			t.Logf("the stop returned after %v; the command's run ended %v after it", took.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
			if slow && leaderExited {
				// The bound out of reach, what ended the wait was
				// the leader's exit, not every process's having begun
				// to exit (killGroup.settled).
				t.Errorf("the owner's stop returned only once the leader had finished exiting (%v), not once every process of the command had begun to", took.Round(time.Millisecond))
			}
			if strings.Contains(string(b), "after-the-stop") {
				t.Errorf("a process of the command read what was written after its owner's stop had returned (%v) and wrote it into the workspace: %q (exit %d)", took.Round(time.Millisecond), b, o.r.ExitCode)
			}
		})
	}
}
