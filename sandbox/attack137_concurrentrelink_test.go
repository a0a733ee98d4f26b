package sandbox

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"

	"turnstile/domain"
)

// TestAttack137_ConcurrentRelink (hundred-and-thirty-seventh review): a
// path a held repository's config names through a symlink in a root (the
// person's core.hooksPath = tools/hooks, tools -> shared/tools) is judged
// after a command by where it leads then against where it led when the
// command started (linkRefs, setAsideRelinked). Two commands may run at
// once in one workspace (an agent's parallel tool calls). Command A
// re-points tools at a directory of its own, evil (evil/hooks/pre-commit
// its hook), and, still running, lets command B start: B's discovery
// records tools/hooks as leading to evil/hooks. A ends: its check sets the
// link aside. B then makes tools -> evil again: to B's check the path leads
// where it led when B started, so the link is kept. The person's next git
// commit runs evil/hooks/pre-commit outside the sandbox.
//
// Control ("control"): the same two commands, B started before A's relink
// (it records tools/hooks as leading to shared/tools/hooks): B's link is
// set aside and the person's commit runs only the person's hook.
func TestAttack137_ConcurrentRelink(t *testing.T) {
	f := requireKernel(t, true)
	for _, c := range []struct {
		name       string
		afterRelnk bool
	}{{"control", false}, {"b-starts-after-relink", true}} {
		t.Run(c.name, func(t *testing.T) {
			ws := tempWorkspace(t)
			mkfiles(t, ws, map[string]string{
				"shared/tools/hooks/pre-commit": "#!/bin/sh\ntouch \"$(git rev-parse --show-toplevel)/person-hook-ran\"\n",
				"src/main.go":                   "x\n",
			})
			mustDo(t, os.Chmod(ws+"/shared/tools/hooks/pre-commit", 0o755))
			mustDo(t, os.Symlink("shared/tools", ws+"/tools"))
			hostGit(t, ws, "init", "-q")
			hostGit(t, ws, "config", "core.hooksPath", "tools/hooks")
			if out, err := hostGitRun(t, ws, "commit", "-q", "--allow-empty", "-m", "first"); err != nil || !exists(ws+"/person-hook-ran") {
				t.Fatalf("premise: the person's hook did not run: %v %s", err, out)
			}
			os.Remove(ws + "/person-hook-ran")
			for _, n := range []string{"f0", "f1", "f2", "f3"} {
				mustDo(t, syscall.Mkfifo(ws+"/"+n, 0o666))
			}
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
			hook := "#!/bin/sh\\ntouch " + ws + "/pwned\\n"
			const relink = `ln -s evil tools.new && mv -T tools.new tools`
			prepare := "mkdir -p evil/hooks && printf '" + hook + "' > evil/hooks/pre-commit && chmod +x evil/hooks/pre-commit && " + relink
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
					t.Fatalf("premise: the command ended before writing %s: %+v %v", name, r.r, r.err)
				}
			}
			// B re-points tools at evil, whatever is there after A's check.
			const bRelink = `rm -f tools; ` + relink + ` && echo DONE`
			// Since the fix (sandbox/rootlock.go) commands over one root run one
			// at a time: B cannot start while A runs, so A waits for B's word
			// at most 3 s and goes on (OVERLAP would say B ran meanwhile), B
			// gives it in the background (nobody reads it after A), and in the
			// control B no longer waits for the test's word (A waits for B).
			var a, b chan res
			if c.afterRelnk {
				a = spawn(prepare + ` && echo relinked > f1 && { if timeout 3 cat f2 >/dev/null; then echo OVERLAP; fi; } && echo A`)
				readFifo("f1", a) // A has re-pointed tools
				b = spawn(`{ echo started > f2 & } && cat f3 >/dev/null && ` + bRelink)
			} else {
				b = spawn(`echo started > f0 && ` + bRelink)
				readFifo("f0", b) // B has started
				a = spawn(prepare + ` && echo A`)
			}
			ra := <-a
			if ra.r != nil && strings.Contains(string(ra.r.Stdout), "OVERLAP") {
				t.Errorf("B started while A ran over the same root")
			}
			if ra.err != nil || !strings.Contains(string(ra.r.Stdout), "A") {
				t.Fatalf("premise: A: %+v %v", ra.r, ra.err)
			}
			t.Logf("A quarantined: %v", quarantined(ra.r))
			if dst, err := os.Readlink(ws + "/tools"); err == nil && dst == "evil" {
				t.Fatalf("premise: A's relink was not set aside")
			}
			if c.afterRelnk {
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
				t.Errorf("the person's commit ran the command's hook evil/hooks/pre-commit: B, started while A's relink of tools stood, took tools -> evil for the way it was, and its own relink after A's check set the link aside was kept (%v %s)", err, out)
			}
		})
	}
}
