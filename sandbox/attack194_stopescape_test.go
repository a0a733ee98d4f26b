package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack194_StopMissesOtherSessionInNamespace: the owner's kill
// (Plan.KillWith, what engine.OnStop calls from StopRuns and a narrowing
// change, under the engine's lock) sends SIGKILL to the helper's process
// group only. A process the command moved into a session of its own
// (setsid, a double fork, job control) is not in that group: it dies only
// when the namespace's init (the command's leader) has finished exiting
// and the kernel zaps the PID namespace — after the kill returned, by as
// long as the leader takes to exit (its memory unmapped first: a leader
// holding 512 MiB takes some 80 ms here). In that gap the process the
// agent left behind reads what the agent sends after the person's
// interrupt returned and acts on it (here: writes it into the workspace).
// The guarantee this session's change makes ("the caller goes on knowing
// the processes were sent their kill") holds for the group, not for the
// command's processes.
// Control: the same reader left in the command's process group (no
// setsid) reads nothing after the kill; and before the kill, the reader
// in its own session reads what is written (the channel works).
func TestAttack194_StopMissesOtherSessionInNamespace(t *testing.T) {
	f := requireKernel(t, true)
	for _, escaped := range []bool{false, true} {
		name := "control: reader in the command's group"
		if escaped {
			name = "reader in a session of its own"
		}
		t.Run(name, func(t *testing.T) {
			ws := tempWorkspace(t)
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
			fifo, out, ready := filepath.Join(ws, "fifo"), filepath.Join(ws, "out"), filepath.Join(ws, "ready")
			if err := syscall.Mkfifo(fifo, 0o666); err != nil {
				t.Fatal(err)
			}
			reader := "cat " + fifo + " > " + out + " &"
			if escaped {
				reader = "setsid cat " + fifo + " > " + out + " &"
			}
			// The leader holds 512 MiB (its exit takes a while), then
			// waits to be killed.
			script := reader + "\nexec perl -e '$x = \"a\" x (512<<20); open F, \">\", \"" + ready + "\"; close F; sleep 600'"
			var kill func()
			registered := make(chan struct{})
			type result struct {
				r   *Result
				err error
			}
			done := make(chan result, 1)
			go func() {
				p, err := PlanSpawn(s, SpawnRequest{Argv: []string{"/bin/sh", "-c", script}, TimeoutMs: 120000}, os.Environ())
				if err != nil {
					done <- result{nil, err}
					return
				}
				p.KillWith(func(k, w func()) func() { kill = func() { k(); w() }; close(registered); return func() {} })
				r, err := Run(context.Background(), p)
				done <- result{r, err}
			}()
			<-registered
			var w *os.File
			for i := 0; ; i++ {
				if exists(ready) {
					var err error
					if w, err = os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
						break
					}
				}
				if i > 60000 {
					kill()
					t.Fatal("setup: the command never got ready")
				}
				time.Sleep(time.Millisecond) // polling a state, not standing in for it
			}
			defer w.Close()
			// Control of the channel: before the kill, what is written
			// reaches the workspace.
			w.Write([]byte("before\n"))
			for i := 0; ; i++ {
				b, _ := os.ReadFile(out)
				if strings.Contains(string(b), "before") {
					break
				}
				if i > 20000 {
					kill()
					t.Fatal("setup: the reader never wrote what it read before the kill")
				}
				time.Sleep(time.Millisecond) // polling a state, not standing in for it
			}
			// The person's interrupt: the owner's kill returns; then the
			// agent writes.
			kill()
			w.Write([]byte("after-the-stop\n"))
			w.Close()
			o := <-done
			WaitCleanup()
			if o.r == nil {
				t.Fatalf("run: %v", o.err)
			}
			b, _ := os.ReadFile(out)
			if strings.Contains(string(b), "after-the-stop") {
				t.Errorf("a process of the command read what was written after its owner's kill had returned and wrote it into the workspace: %q (exit %d)", b, o.r.ExitCode)
			}
		})
	}
}
