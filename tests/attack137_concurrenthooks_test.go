package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestAttack137_ConcurrentExecMissingHooks (hundred-and-thirty-seventh
// review, end to end; sandbox/attack137_concurrenthooks_test.go is the
// same at the sandbox's level): the person's repository config names
// core.hooksPath = .githooks, which does not exist. The agent runs two
// commands of one turn at once (two tool calls, each approved by the
// person as an ordinary command). Command A makes .githooks/pre-commit
// and, still running, lets B start (B's sandbox takes .githooks as
// existing: not watched as missing). A ends: its check sets .githooks
// aside. B then makes .githooks/pre-commit again; B's check keeps it; the
// person's next git commit runs it on the host, outside every sandbox.
//
// Control ("control"): the same two commands with B started before A made
// .githooks: B's .githooks is set aside and the commit runs no hook.
func TestAttack137_ConcurrentExecMissingHooks(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name      string
		afterMade bool
	}{{"control", false}, {"b-starts-after-hooks-made", true}} {
		t.Run(c.name, func(t *testing.T) {
			s := StartServer(t, "")
			root := workspace(t)
			git := func(args ...string) (string, error) {
				cmd := exec.Command("git", append([]string{"-c", "user.name=p", "-c", "user.email=p@x"}, args...)...)
				cmd.Dir = root
				cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1"}
				out, err := cmd.CombinedOutput()
				return string(out), err
			}
			for _, args := range [][]string{{"init", "-q"}, {"config", "core.hooksPath", ".githooks"}} {
				if out, err := git(args...); err != nil {
					t.Skipf("git %v: %v %s", args, err, out)
				}
			}
			for _, n := range []string{"f0", "f1", "f2", "f3"} {
				if err := syscall.Mkfifo(filepath.Join(root, n), 0o666); err != nil {
					t.Fatal(err)
				}
			}
			s.startTurn("ch", "ws", "auto_accept_edits", root)
			hook := "#!/bin/sh\\ntouch " + root + "/pwned\\n"
			plant := "mkdir -p .githooks && printf '" + hook + "' > .githooks/pre-commit && chmod +x .githooks/pre-commit"
			// run asks, has the person allow it once, and runs it in the
			// background; its answer comes on the channel.
			run := func(id, cmd string) chan decisionAnswer {
				body := map[string]any{"tool_call_id": id, "cmd": cmd, "cwd": root}
				status, first := s.exec("ch", "", body)
				if status != http.StatusAccepted || first.Request == nil {
					t.Fatalf("premise: exec %s: %d %+v, want an ask", id, status, first)
				}
				s.respond(first.Request.RequestID, "allow_once")
				ch := make(chan decisionAnswer, 1)
				go func() {
					_, raw := s.Do("POST", "/v1/turns/ch/exec", body)
					var d decisionAnswer
					json.Unmarshal(raw, &d)
					ch <- d
				}()
				return ch
			}
			readFifo := func(name string, done chan decisionAnswer) {
				got := make(chan struct{})
				go func() { os.ReadFile(filepath.Join(root, name)); close(got) }()
				select {
				case <-got:
				case d := <-done:
					t.Fatalf("premise: the command ended before writing %s: %+v %+v", name, d, d.Result)
				}
			}
			// Since the fix (sandbox/rootlock.go) commands over one root run one
			// at a time: B cannot start while A runs, so A waits for B's word
			// at most 3 s and goes on (OVERLAP would say B ran meanwhile), B
			// gives it in the background (nobody reads it after A), and in the
			// control B no longer waits for the test's word (A waits for B).
			var a, b chan decisionAnswer
			if c.afterMade {
				a = run("a", plant+" && echo made > f1 && { if timeout 3 cat f2 >/dev/null; then echo OVERLAP; fi; } && echo A")
				readFifo("f1", a)
				b = run("b", "{ echo started > f2 & } && cat f3 >/dev/null && "+plant+" && echo DONE")
			} else {
				b = run("b", "echo started > f0 && "+plant+" && echo DONE")
				readFifo("f0", b)
				a = run("a", plant+" && echo A")
			}
			da := <-a
			if da.Result == nil || !strings.Contains(da.Result.Stdout, "A") {
				t.Fatalf("premise: A: %+v %+v", da, da.Result)
			}
			if strings.Contains(da.Result.Stdout, "OVERLAP") {
				t.Errorf("B started while A ran over the same root")
			}
			t.Logf("A quarantined: %+v", da.Result.Quarantined)
			if exists(filepath.Join(root, ".githooks/pre-commit")) {
				t.Fatalf("premise: A's .githooks was not set aside")
			}
			if c.afterMade {
				if err := os.WriteFile(filepath.Join(root, "f3"), []byte("go\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			db := <-b
			if db.Result == nil || !strings.Contains(db.Result.Stdout, "DONE") {
				t.Fatalf("premise: B: %+v %+v", db, db.Result)
			}
			t.Logf("B quarantined: %+v", db.Result.Quarantined)
			out, err := git("commit", "-q", "--allow-empty", "-m", "person's commit")
			if exists(filepath.Join(root, "pwned")) {
				t.Errorf("the person's commit ran the hook a command of the turn made (.githooks/pre-commit): B, started while A's .githooks stood, kept the one it made after A's check set A's aside (%v %s)", err, out)
			}
		})
	}
}
