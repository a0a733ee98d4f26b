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

// TestAttack196_StopReturnsAtTheLeadersExitWithoutAPIDNamespace: with a
// kill group (a root server on cgroup v2), ownerStop.wait polls the
// leader's pidfd and returns as soon as it is readable, before it asks
// killGroup.settled. That the leader's exit means every process is gone
// holds for a PID namespace's init only; a command run without one (a
// full_access command under --full-access-unisolated, which the README's
// kill-group sentence covers: "a root server starts each command in a
// cgroup of its own") has a leader that exits at once on SIGKILL, while another process of it, SIGKILLed by
// the same cgroup.kill, is still in the kernel without having begun to
// exit (an O_DIRECT write waiting for the inode lock that a truncate of a
// file of 120,000 extents holds for 10-20 s on ext4). The stop returns at
// once ("a stop returns once each has begun to exit", README), and the
// write lands in the workspace seconds later (Run, too, has returned by
// then: its kill group's release gave up after 2 s, and the group is left). Control: the same command
// over a small file: the write is the command's to make (it lands before
// the stop); in the attack the writer is blocked (D) and nothing written
// before the stop.
func TestAttack196_StopReturnsAtTheLeadersExitWithoutAPIDNamespace(t *testing.T) {
	f := requireKernel(t, false)
	kg, err := newKillGroup()
	if err != nil {
		t.Skipf("no kill groups here (%v): the claim is a root server's on cgroup v2", err)
	}
	kg.release()
	// Run's release gives up on a group whose processes outlive it by
	// 2 s (the writer here): remove this process's empty ones at the end.
	t.Cleanup(func() {
		mnt, _ := cgroup2Mount()
		own, _ := ownCgroup()
		left, _ := filepath.Glob(filepath.Join(mnt, own, fmt.Sprintf("turnstile-cmd-%d-*", os.Getpid())))
		for _, d := range left {
			unix.Rmdir(d)
		}
	})
	nr := map[string]int{"amd64": 285, "arm64": 47}[runtime.GOARCH]
	if nr == 0 {
		t.Skip("fallocate's syscall number is known here for amd64 and arm64 only")
	}
	for _, c := range []struct {
		name string
		snap func(ws string) *domain.TurnExecutionSecuritySnapshot
	}{
		{"full_access unisolated", func(ws string) *domain.TurnExecutionSecuritySnapshot {
			k := f.Kernel
			k.UserNamespaces, k.FullAccessUnisolated = false, true
			s := snapshotFor(t, domain.ModeFullAccess, ws, k)
			data := filepath.Join(t.TempDir(), "data")
			os.Mkdir(data, 0o700)
			domain.AddSensitivePaths(s, []string{data})
			return s
		}},
	} {
		for _, extents := range []int{16, 120000} {
			slow := extents > 1000
			name := c.name + "/control: small file"
			if slow {
				name = c.name + "/write held by a truncate of many extents"
			}
			t.Run(name, func(t *testing.T) {
				ws := tempWorkspace(t)
				var st syscall.Statfs_t
				if err := syscall.Statfs(ws, &st); err != nil || st.Type != 0xEF53 {
					t.Skipf("the workspace is not on ext4 (statfs type %#x, %v)", st.Type, err)
				}
				s := c.snap(ws)
				big, ready, payload := filepath.Join(ws, "big"), filepath.Join(ws, "ready"), filepath.Join(ws, "payload")
				written := func() bool {
					b, _ := os.ReadFile(big)
					return strings.Contains(string(b), "PPPPPPPP")
				}
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
					"while :; do s=$(sed 's/.*) //' /proc/$d/stat 2>/dev/null | cut -c1); if [ \"$s\" = D ] || [ \"$s\" = Z ] || [ -z \"$s\" ]; then break; fi; done\n" +
					"echo \"$s $d\" > " + ready + "\n" +
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
				var writer int
				for i := 0; ; i++ {
					if b, err := os.ReadFile(ready); err == nil && strings.HasSuffix(string(b), "\n") {
						fmt.Sscan(string(b), &state, &writer)
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
				// The writer (a host pid: no PID namespace), to know when
				// it has ended.
				pidfd, err := unix.PidfdOpen(writer, 0)
				if err != nil {
					kill()
					<-done
					t.Fatalf("pidfd of the writer %d: %v", writer, err)
				}
				defer unix.Close(pidfd)
				start := time.Now()
				kill() // the owner's stop: kill, then wait
				took := time.Since(start)
				writtenAtStop := written()
				o := <-done
				WaitCleanup()
				if o.r == nil {
					t.Fatalf("run: %v", o.err)
				}
				// Until the writer has ended (Run does not wait for it).
				if n, err := unix.Poll([]unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}, 300000); n != 1 {
					t.Fatalf("the writer did not end: %v", err)
				}
				writtenAtEnd := written()
				t.Logf("the stop returned after %v (written then: %v); the writer ended %v after the stop began (written then: %v)",
					took.Round(time.Millisecond), writtenAtStop, time.Since(start).Round(time.Millisecond), writtenAtEnd)
				if !writtenAtStop && writtenAtEnd {
					t.Errorf("a process of the command wrote into %s after its owner's stop had returned (%v, at the leader's exit): the stop returned while that process had not begun to exit", big, took.Round(time.Millisecond))
				}
			})
		}
	}
}
