package sandbox

import (
	"bufio"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// testSignalsArg runs the test binary as a process that catches SIGTERM
// with notifySoon, says "ready", says "first" once the signal is caught and
// then waits for ever.
const testSignalsArg = "__turnstile-test-signals"

func runSignals() {
	ctx, _ := notifySoon(syscall.SIGTERM)()
	os.Stdout.WriteString("ready\n")
	<-ctx.Done()
	os.Stdout.WriteString("first\n")
	select {}
}

// TestNotifySoonCatchesOnlyTheFirstSignal: turnstile sandbox catches the
// first interrupt to clean up; a second one ends it at once (a cleanup that
// takes long cannot keep it alive against a second Ctrl-C). The process
// catches the first SIGTERM (control: it is alive and says so) and dies of
// the second.
func TestNotifySoonCatchesOnlyTheFirstSignal(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, testSignalsArg)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(out)
	expect := func(want string) {
		t.Helper()
		if !lines.Scan() || lines.Text() != want {
			t.Fatalf("the process said %q (%v), want %q", lines.Text(), lines.Err(), want)
		}
	}
	expect("ready")
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	expect("first") // caught: alive
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
			t.Fatalf("after the second SIGTERM: %v (%v), want killed by it", err, ws)
		}
	case <-time.After(30 * time.Second): // a hang guard: the second signal was caught too
		t.Fatal("the second SIGTERM was caught: the process lives on")
	}
}
