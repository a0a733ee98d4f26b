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

	"turnstile/domain"
)

// TestAttack196_StopReturnsWhileABlockedWriteIsPending: since 3b54fa1a a
// root server runs every command in a cgroup of its own, and the README
// says a stop (an interrupt, a turn's end, a narrowing change: the owner's
// kill then wait, Plan.KillWith) "returns once each has begun to exit".
// ownerStop.wait ends when killGroup.settled sees every thread PF_EXITING,
// but it is still bounded by ownerStopWait (5 s), and the command decides
// how long one of its processes stays in the kernel without beginning to
// exit: an ftruncate to 0 of a file of 120,000 extents (fallocate over
// every other block: no data written, a few hundred MB reserved) holds the
// file's inode lock for 10-20 s on ext4, unkillable; a second process
// whose O_DIRECT write into that file waits on the lock (uninterruptibly:
// D state, SIGKILL pending, not exiting; so do a utimes', a rename's or a
// link's, not a chmod's, which is killable, nor a buffered write's, which
// checks for SIGKILL once it has the lock) gets it once the truncate is
// done, writes its data into the file, then dies. The wait gives up after 5 s, the stop
// returns, and the workspace changes seconds after the owner was told the
// command can act no more (a narrowing change's new rules, the next turn,
// the person reviewing the workspace). Control: the same command over a
// small file (its truncate done at once): the write is the command's to
// make and lands before the stop; in the attack, before the stop, the
// writer is blocked (D) and nothing written yet (the hold works as
// described).
func TestAttack196_StopReturnsWhileABlockedWriteIsPending(t *testing.T) {
	f := requireKernel(t, true)
	kg, err := newKillGroup()
	if err != nil {
		t.Skipf("no kill groups here (%v): the claim is a root server's on cgroup v2", err)
	}
	kg.release()
	nr := map[string]int{"amd64": 285, "arm64": 47}[runtime.GOARCH]
	if nr == 0 {
		t.Skip("fallocate's syscall number is known here for amd64 and arm64 only")
	}
	for _, extents := range []int{16, 120000} {
		slow := extents > 1000
		name := "control: small file, the write is not held"
		if slow {
			name = "write held by a truncate of many extents"
		}
		t.Run(name, func(t *testing.T) {
			ws := tempWorkspace(t)
			var st syscall.Statfs_t
			if err := syscall.Statfs(ws, &st); err != nil || st.Type != 0xEF53 {
				t.Skipf("the workspace is not on ext4 (statfs type %#x, %v)", st.Type, err)
			}
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
			big, ready, payload := filepath.Join(ws, "big"), filepath.Join(ws, "ready"), filepath.Join(ws, "payload")
			written := func() bool {
				b, _ := os.ReadFile(big)
				return strings.Contains(string(b), "PPPPPPPP")
			}
			// Make the file; truncate it in the background; a second
			// process waits until the truncate has begun (size 0, the
			// extents not yet freed) and writes 4 KiB into it (O_DIRECT);
			// ready once it is blocked in the kernel (D) or done. The
			// control waits for it to be done (a small truncate may hold
			// it for a moment: D, briefly).
			waitFor := ""
			if !slow {
				waitFor = "wait $d\n"
			}
			script := "head -c 4096 /dev/zero | tr '\\000' P > " + payload + "\n" +
				"perl -e 'open(my $f, \"+>\", \"" + big + "\") or die \"open: $!\"; my $fd = fileno($f); " +
				fmt.Sprintf("for my $i (0..%d) { syscall(%d, $fd, 0, $i*8192, 4096) == 0 or die \"fallocate: $!\" }' || exit 1\n", extents-1, nr) +
				"perl -e 'open(my $f, \"+<\", \"" + big + "\") or die; truncate($f, 0) or die \"truncate: $!\"' &\n" +
				"perl -e 'until ((stat(\"" + big + "\"))[7] == 0) {} exec \"dd\", \"if=" + payload + "\", \"of=" + big + "\", \"oflag=direct\", \"bs=4096\", \"count=1\", \"conv=notrunc\", \"status=none\"' &\n" +
				"d=$!\n" +
				waitFor +
				"st() { while :; do s=$(sed 's/.*) //' /proc/$1/stat 2>/dev/null | cut -c1); if [ \"$s\" = D ] || [ \"$s\" = Z ] || [ -z \"$s\" ]; then echo \"$s\"; return; fi; done; }\n" +
				"s=$(st $d)\n" +
				"echo \"$s\" > " + ready + "\n" +
				"wait; sleep 600\n"
			var kill func()
			registered := make(chan struct{})
			type result struct {
				r   *Result
				err error
			}
			done := make(chan result, 1)
			go func() {
				p, err := PlanSpawn(s, SpawnRequest{Argv: []string{"/bin/sh", "-c", script}, TimeoutMs: 300000}, os.Environ())
				if err != nil {
					close(registered)
					done <- result{nil, err}
					return
				}
				p.KillWith(func(k, w func()) func() { kill = func() { k(); w() }; close(registered); return func() {} })
				r, err := Run(context.Background(), p)
				done <- result{r, err}
			}()
			<-registered
			if kill == nil {
				o := <-done
				t.Fatalf("plan: %v", o.err)
			}
			var state string
			for i := 0; ; i++ {
				if b, err := os.ReadFile(ready); err == nil && strings.HasSuffix(string(b), "\n") {
					state = strings.TrimSpace(string(b))
					break
				}
				select {
				case o := <-done:
					t.Fatalf("setup: the command ended before it was ready: %+v %v", o.r, o.err)
				default:
				}
				if i > 120000 {
					kill()
					t.Fatal("setup: the command never got ready")
				}
				time.Sleep(time.Millisecond) // polling a state, not standing in for it
			}
			if !slow {
				// Control: nothing holds the write; it is the command's to make.
				w := written()
				kill()
				<-done
				WaitCleanup()
				if !w {
					t.Fatalf("control: the write did not land (the writer's state %q)", state)
				}
				return
			}
			if state != "D" || written() {
				kill()
				o := <-done
				t.Fatalf("setup: the write is not held (state %q): %+v %v", state, o.r, o.err)
			}
			start := time.Now()
			kill() // the owner's stop: kill, then wait
			took := time.Since(start)
			writtenAtStop := written()
			o := <-done
			WaitCleanup()
			if o.r == nil {
				t.Fatalf("run: %v", o.err)
			}
			writtenAtEnd := written()
			t.Logf("the stop returned after %v (written then: %v); the run ended %v after the stop began (written then: %v)",
				took.Round(time.Millisecond), writtenAtStop, time.Since(start).Round(time.Millisecond), writtenAtEnd)
			if !writtenAtStop && writtenAtEnd {
				t.Errorf("a process of the command wrote into %s in the workspace after its owner's stop had returned (%v): the stop returned while that process had not begun to exit", big, took.Round(time.Millisecond))
			}
		})
	}
}
