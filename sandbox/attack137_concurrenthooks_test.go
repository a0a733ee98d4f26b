package sandbox

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"

	"turnstile/domain"
)

// TestAttack137_ConcurrentMissingHooks (hundred-and-thirty-seventh
// review): a hooks directory a held repository's config names that does
// not exist when a command starts (the person's core.hooksPath = .githooks,
// no .githooks yet) is watched as missing: a command that makes it has it
// set aside (missingRefs, setAsideCreated). Two commands may run at once
// in one workspace (an agent's parallel tool calls). Command A makes
// .githooks/pre-commit and, still running, lets command B start: to B the
// hooks directory exists (it is kept read-only in B's view, not watched as
// missing, and, not being on the protected list, not watched as present
// either). A ends: its check sets .githooks aside. B then makes
// .githooks/pre-commit again (its read-only mount went with A's directory):
// B's check looks for nothing there, and the person's next git commit runs
// B's hook outside the sandbox.
//
// Control ("control"): the same two commands, B started before A made
// .githooks (to B it is missing): B's .githooks is set aside and the
// person's commit runs no hook.
func TestAttack137_ConcurrentMissingHooks(t *testing.T) {
	f := requireKernel(t, true)
	for _, c := range []struct {
		name      string
		afterMade bool
	}{{"control", false}, {"b-starts-after-hooks-made", true}} {
		t.Run(c.name, func(t *testing.T) {
			ws := tempWorkspace(t)
			mkfiles(t, ws, map[string]string{"src/main.go": "x\n"})
			hostGit(t, ws, "init", "-q")
			hostGit(t, ws, "config", "core.hooksPath", ".githooks")
			for _, n := range []string{"f0", "f1", "f2", "f3"} {
				mustDo(t, syscall.Mkfifo(ws+"/"+n, 0o666))
			}
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
			hook := "#!/bin/sh\\ntouch " + ws + "/pwned\\n"
			plant := "mkdir -p .githooks && printf '" + hook + "' > .githooks/pre-commit && chmod +x .githooks/pre-commit"
			type res struct {
				r   *Result
				err error
			}
			spawn := func(script string) chan res {
				p, err := PlanSpawn(s, SpawnRequest{Argv: []string{"/bin/sh", "-c", script}}, os.Environ())
				if err != nil {
					t.Fatalf("plan: %v", err)
				}
				ch := make(chan res, 1)
				go func() {
					r, err := Run(context.Background(), p)
					ch <- res{r, err}
				}()
				return ch
			}
			readFifo := func(name string, done chan res) {
				got := make(chan struct{})
				go func() { os.ReadFile(ws + "/" + name); close(got) }()
				select {
				case <-got:
				case r := <-done:
					// Both may be ready when the select runs (the command
					// wrote the FIFO and ended before this goroutine ran).
					// A script that ran to its end wrote it on its way, and
					// its write's open waited for the reader's: the reader
					// has it, and returns.
					done <- r
					if r.err != nil || r.r == nil || r.r.ExitCode != 0 {
						t.Fatalf("premise: the command ended before writing %s: %+v %v", name, r.r, r.err)
					}
					<-got
				}
			}
			// Since the fix (sandbox/rootlock.go) commands over one root run one
			// at a time: B cannot start while A runs, so A waits for B's word
			// at most 3 s and goes on (OVERLAP would say B ran meanwhile), B
			// gives it in the background (nobody reads it after A), and in the
			// control B no longer waits for the test's word (A waits for B).
			var a, b chan res
			if c.afterMade {
				a = spawn(plant + ` && echo made > f1 && { if timeout 3 cat f2 >/dev/null; then echo OVERLAP; fi; } && echo A`)
				readFifo("f1", a) // A has made .githooks
				b = spawn(`{ echo started > f2 & } && cat f3 >/dev/null && ` + plant + ` && echo DONE`)
			} else {
				b = spawn(`echo started > f0 && ` + plant + ` && echo DONE`)
				readFifo("f0", b) // B has started
				a = spawn(plant + ` && echo A`)
			}
			ra := <-a
			if ra.r != nil && strings.Contains(string(ra.r.Stdout), "OVERLAP") {
				t.Errorf("B started while A ran over the same root")
			}
			if ra.err != nil || !strings.Contains(string(ra.r.Stdout), "A") {
				t.Fatalf("premise: A: %+v %v", ra.r, ra.err)
			}
			t.Logf("A quarantined: %v", quarantined(ra.r))
			if exists(ws + "/.githooks/pre-commit") {
				t.Fatalf("premise: A's .githooks was not set aside")
			}
			if c.afterMade {
				mustDo(t, os.WriteFile(ws+"/f3", []byte("go\n"), 0o644))
			}
			rb := <-b
			WaitCleanup()
			if rb.err != nil || !strings.Contains(string(rb.r.Stdout), "DONE") {
				t.Fatalf("premise: B: %+v %v", rb.r, rb.err)
			}
			t.Logf("B quarantined: %v", quarantined(rb.r))
			out, err := hostGitRun(t, ws, "commit", "-q", "--allow-empty", "-m", "person's commit")
			if exists(ws + "/pwned") {
				t.Errorf("the person's commit ran the command's hook .githooks/pre-commit: B, started while A's .githooks stood, did not watch it as missing, and the one it made after A's check set A's aside was kept (%v %s)", err, out)
			}
		})
	}
}
