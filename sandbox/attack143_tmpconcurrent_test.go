package sandbox

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"

	"turnstile/domain"
)

// TestAttack143_SlashTmpConcurrentMissingHooks (review 143): the
// hundred-and-thirty-seventh review's two commands at once
// (TestAttack137_ConcurrentMissingHooks), past its fix. The fix runs the
// commands over one root one at a time (an exclusive flock of the root's
// lock file); a workspace in /tmp under a profile that makes /tmp writable
// (":slash_tmp" = "write") holds no exclusive lock (lockTargets drops the
// workspace as nested in /tmp, and /tmp is taken shared:
// TestAttack143_SlashTmpDropsWorkspaceLock). The person's config names a
// hooks directory that does not exist yet (core.hooksPath = .githooks).
// Command A makes .githooks/pre-commit and, still running, lets command B
// start: to B the hooks directory exists (not watched as missing). A's
// check sets .githooks aside; B makes it again; B's check looks for
// nothing there; the person's next commit runs B's hook.
//
// Control ("control"): the same two commands under the plain workspace
// profile: B cannot start while A runs (A's wait for B's word ends after
// at most 3 s), B's .githooks is watched as missing and set aside, and the
// person's commit runs no hook.
func TestAttack143_SlashTmpConcurrentMissingHooks(t *testing.T) {
	requireKernel(t, true)
	for _, slashTmp := range []bool{false, true} {
		name := "control"
		if slashTmp {
			name = "slash-tmp-write"
		}
		t.Run(name, func(t *testing.T) {
			ws := tempWorkspace(t) // in /tmp
			mkfiles(t, ws, map[string]string{"src/main.go": "x\n"})
			hostGit(t, ws, "init", "-q")
			hostGit(t, ws, "config", "core.hooksPath", ".githooks")
			for _, n := range []string{"f1", "f2", "f3"} {
				mustDo(t, syscall.Mkfifo(ws+"/"+n, 0o666))
			}
			fs := map[string]domain.Access{}
			if slashTmp {
				fs[":slash_tmp"] = domain.AccessWrite
			}
			s := profileSnapshot(t, ws, fs)
			hook := "#!/bin/sh\\ntouch " + ws + "/pwned\\n"
			plant := "mkdir -p .githooks && printf '" + hook + "' > .githooks/pre-commit && chmod +x .githooks/pre-commit"
			type res struct {
				r   *Result
				err error
			}
			spawn := func(script string) chan res {
				p, err := PlanSpawn(&s, SpawnRequest{Argv: []string{"/bin/sh", "-c", script}}, os.Environ())
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
					t.Fatalf("premise: the command ended before writing %s: %+v %v", name, r.r, r.err)
				}
			}
			a := spawn(plant + ` && echo made > f1 && { if timeout 3 cat f2 >/dev/null; then echo OVERLAP; fi; } && echo A`)
			readFifo("f1", a) // A has made .githooks
			b := spawn(`{ echo started > f2 & } && cat f3 >/dev/null && ` + plant + ` && echo DONE`)
			ra := <-a
			if ra.err != nil || !strings.Contains(string(ra.r.Stdout), "A") {
				t.Fatalf("premise: A: %+v %v", ra.r, ra.err)
			}
			overlap := strings.Contains(string(ra.r.Stdout), "OVERLAP")
			t.Logf("A quarantined: %v (B ran meanwhile: %v)", quarantined(ra.r), overlap)
			if exists(ws + "/.githooks/pre-commit") {
				t.Fatalf("premise: A's .githooks was not set aside")
			}
			mustDo(t, os.WriteFile(ws+"/f3", []byte("go\n"), 0o644))
			rb := <-b
			WaitCleanup()
			if rb.err != nil || !strings.Contains(string(rb.r.Stdout), "DONE") {
				t.Fatalf("premise: B: %+v %v", rb.r, rb.err)
			}
			t.Logf("B quarantined: %v", quarantined(rb.r))
			out, err := hostGitRun(t, ws, "commit", "-q", "--allow-empty", "-m", "person's commit")
			pwned := exists(ws + "/pwned")
			if !slashTmp {
				if overlap || pwned {
					t.Errorf("control: B ran while A ran (%v) or the person's commit ran B's hook (%v)", overlap, pwned)
				}
				return
			}
			if overlap {
				t.Errorf("ESCAPED (lock): B started while A ran over the same workspace (/tmp writable)")
			}
			if pwned {
				t.Errorf("ESCAPED: the person's commit ran the hook .githooks/pre-commit a command made while another command over the same workspace ran (/tmp writable: no exclusive lock) (%v %s)", err, out)
			}
		})
	}
}
