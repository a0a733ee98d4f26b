package sandbox

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestAttack137_ConcurrentRestoreReplants (hundred-and-thirty-seventh
// review): the index put back is the one the watch saved when the command
// started, which a concurrent command may have planted. Command A plants
// .env in the index and, still running, lets command B start: B saves the
// planted index as the one to put back. A ends: its check sets the planted
// index aside and puts back the one from before A. B then plants another
// entry (sub/new.env), plainly: B's check sets that index aside and puts
// back its saved one, A's plant of .env. The check itself plants it: the
// person's git commit -a copies the real .env into the object store, where
// the next command reads it (git show HEAD:.env).
//
// Control ("control"): the same two commands, B started before A's plant
// (its saved index without .env): B's check puts back an index without
// .env and .env stays out of the object store.
func TestAttack137_ConcurrentRestoreReplants(t *testing.T) {
	for _, c := range []struct {
		name       string
		afterPlant bool
	}{{"control", false}, {"b-starts-after-plant", true}} {
		t.Run(c.name, func(t *testing.T) {
			ws, s := indexRepo(t)
			for _, f := range []string{"f0", "f1", "f2", "f3"} {
				if err := syscall.Mkfifo(ws+"/"+f, 0o666); err != nil {
					t.Fatal(err)
				}
			}
			const plant = `e=$(git hash-object -w /dev/null) && git update-index --add --cacheinfo 100644,$e,.env`
			const other = `e=$(git hash-object -w /dev/null) && git update-index --add --cacheinfo 100644,$e,sub/new.env`
			type res struct {
				r   *Result
				err error
			}
			spawn := func(script string) chan res {
				p, err := PlanSpawn(&s, SpawnRequest{Argv: []string{"/bin/sh", "-c", indexGitEnv + script}}, os.Environ())
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
			// readFifo waits for a command's word on the fifo, or for the
			// command (done) to end without it.
			readFifo := func(name string, done chan res) {
				got := make(chan struct{})
				go func() { os.ReadFile(ws + "/" + name); close(got) }()
				select {
				case <-got:
				case r := <-done:
					t.Fatalf("premise: the command ended before writing %s: %+v %v", name, r.r, r.err)
				}
			}
			// Since the fix (sandbox/rootlock.go) commands over one root run one
			// at a time: B cannot start while A runs, so A waits for B's word
			// at most 3 s and goes on (OVERLAP would say B ran meanwhile), B
			// gives it in the background (nobody reads it after A), and in the
			// control B no longer waits for the test's word (A waits for B).
			var a, b chan res
			if c.afterPlant {
				a = spawn(plant + ` && echo planted > f1 && { if timeout 3 cat f2 >/dev/null; then echo OVERLAP; fi; } && echo A`)
				readFifo("f1", a) // A has planted
				b = spawn(`{ echo started > f2 & } && cat f3 >/dev/null && ` + other + ` && echo DONE`)
			} else {
				b = spawn(`echo started > f0 && ` + other + ` && echo DONE`)
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
			if files := hostGit(t, ws, "ls-files", "--stage"); strings.Contains(files, "\t.env\n") {
				t.Fatalf("premise: A's plant was not set aside: %s", files)
			}
			// A's check is done: B goes on.
			if c.afterPlant {
				if err := os.WriteFile(ws+"/f3", []byte("go\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			rb := <-b
			WaitCleanup()
			if rb.err != nil || !strings.Contains(string(rb.r.Stdout), "DONE") {
				t.Fatalf("premise: B: %+v %v", rb.r, rb.err)
			}
			t.Logf("B quarantined: %v", quarantined(rb.r))
			// The person's routine commit.
			os.WriteFile(ws+"/README", []byte("z\n"), 0o644)
			attack132Commit(t, ws)
			r := sh(t, &s, indexGitEnv+`cat .env; echo ---; git show HEAD:.env`)
			if before, _, _ := strings.Cut(string(r.Stdout), "---"); strings.Contains(before, "persons-secret") {
				t.Fatalf("premise: .env itself was readable: %q", r.Stdout)
			}
			if strings.Contains(string(r.Stdout), "persons-secret") {
				t.Errorf("the command read .env (denied by \"**/*.env\") from the object store: B, started while A's planted index stood, saved it as the index to put back, and its check put it back after setting aside B's own plant (sub/new.env): %q", r.Stdout)
			}
		})
	}
}
