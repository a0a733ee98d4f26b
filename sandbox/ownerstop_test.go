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

// TestOwnerStopBeforeStartRunsNothing: a command its owner stopped before
// the process started (Plan.KillWith's kill called at once, as
// engine.OnStop does for a turn ended already) runs nothing: the helper
// is killed before it is given its plan. Control: registered and not
// stopped, the same command runs.
func TestOwnerStopBeforeStartRunsNothing(t *testing.T) {
	f := requireKernel(t, true)
	for _, mode := range []domain.Mode{domain.ModeAutoAcceptEdits, domain.ModeFullAccess} {
		ws := tempWorkspace(t)
		s := snapshotFor(t, mode, ws, f.Kernel)
		marker := filepath.Join(ws, "ran")
		req := SpawnRequest{Argv: []string{"/bin/sh", "-c", "touch " + marker}}
		r, err := run(t, s, req, func(p *Plan) { p.KillWith(func(_, _ func()) func() { return func() {} }) })
		if err != nil || r.ExitCode != 0 || !exists(marker) {
			t.Fatalf("%s: control: the command registered and not stopped did not run: %v %+v", mode, err, r)
		}
		os.Remove(marker)
		r, err = run(t, s, req, func(p *Plan) {
			p.KillWith(func(kill, _ func()) func() { kill(); return func() {} })
		})
		if exists(marker) {
			t.Errorf("%s: a command stopped before it started ran (it touched its marker)", mode)
		}
		if err == nil && r.ExitCode == 0 {
			t.Errorf("%s: a command stopped before it started exited 0", mode)
		}
	}
}

// TestOwnerStopKillsBeforeReturning: once the owner's kill has returned,
// the command reads nothing more (the kill is sent by that call, not by a
// goroutine after it): what is written to the fifo it reads after the
// kill never reaches its output. Control: without the kill, what is
// written reaches it.
func TestOwnerStopKillsBeforeReturning(t *testing.T) {
	f := requireKernel(t, true)
	for _, stop := range []bool{false, true} {
		ws := tempWorkspace(t)
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
		fifo, started := filepath.Join(ws, "fifo"), filepath.Join(ws, "started")
		if err := syscall.Mkfifo(fifo, 0o666); err != nil {
			t.Fatal(err)
		}
		var kill func()
		registered := make(chan struct{})
		type out struct {
			r   *Result
			err error
		}
		done := make(chan out, 1)
		go func() {
			p, err := PlanSpawn(s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "touch " + started + "; exec cat " + fifo}}, os.Environ())
			if err != nil {
				done <- out{nil, err}
				return
			}
			p.KillWith(func(k, w func()) func() { kill = func() { k(); w() }; close(registered); return func() {} })
			r, err := Run(context.Background(), p)
			done <- out{r, err}
		}()
		for i := 0; !exists(started); i++ {
			if i > 20000 {
				t.Fatal("setup: the command never started")
			}
			time.Sleep(time.Millisecond) // polling a state, not standing in for it
		}
		<-registered
		// cat has the fifo open once a writer can open it without
		// waiting: then the owner stops the command, and the writer
		// writes.
		var w *os.File
		for i := 0; ; i++ {
			var err error
			if w, err = os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				break
			}
			if i > 20000 {
				t.Fatalf("setup: no reader on the fifo: %v", err)
			}
			time.Sleep(time.Millisecond) // polling a state, not standing in for it
		}
		if stop {
			kill()
		}
		w.Write([]byte("written\n"))
		w.Close()
		o := <-done
		WaitCleanup()
		if o.err != nil && !stop {
			t.Fatalf("control: %v", o.err)
		}
		got := ""
		if o.r != nil {
			got = string(o.r.Stdout)
		}
		switch {
		case !stop && (!strings.Contains(got, "written") || o.r.ExitCode != 0):
			t.Fatalf("control: the command did not read what was written: exit %d %q %q", o.r.ExitCode, got, o.r.Stderr)
		case stop && strings.Contains(got, "written"):
			t.Errorf("the command read what was written after its owner's kill had returned: %q", got)
		case stop && o.r != nil && o.r.ExitCode == 0:
			t.Errorf("the command killed by its owner exited 0")
		}
	}
}

// TestStatExiting: the flags are read past the last parenthesis, whatever
// the command's name holds.
func TestStatExiting(t *testing.T) {
	for _, c := range []struct {
		stat string
		want bool
	}{
		{"42 (sh) S 1 42 42 0 -1 4194560 100 0 0 0", false},
		{"42 (sh) S 1 42 42 0 -1 4194564 100 0 0 0", true},
		{"42 (a) 4 (b) R 1 42 42 0 -1 4194564 1", true},
		{"42 (a) 4 (b) R 1 42 42 0 -1 4194560 1", false},
		{"42 (x) Z 1", false},
		{"garbage", false},
	} {
		if got := statExiting([]byte(c.stat)); got != c.want {
			t.Errorf("statExiting(%q) = %v, want %v", c.stat, got, c.want)
		}
	}
	// Control on the real kernel: this process is not exiting.
	st, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Fatal(err)
	}
	if statExiting(st) {
		t.Errorf("this running process reads as exiting: %q", st)
	}
}
