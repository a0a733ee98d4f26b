package tests

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestAttack137_ConcurrentPlantedToken (hundred-and-thirty-seventh review;
// the hundred-and-thirtieth review's planted token, past its fix by two
// commands at once): before the person's first `turnstile serve`, the
// default data directory (~/.local/state/turnstile) is missing, and
// `turnstile sandbox` over the home watches it whole (DataDirSecrets): a
// command that makes it has it set aside. Two `turnstile sandbox` commands
// run at once (a runtime's parallel tool calls). Command A makes
// .local/state/turnstile/token, a token the agent chose, and, still
// running, lets command B start: to B the directory holds a server's mark
// (it is denied, masked in B's view, and not watched as missing). A ends:
// its check sets the directory aside. B then makes it again with the same
// token (its mask went with A's directory): B's check looks for nothing
// there. The person's next server on its default data directory takes the
// token as its admin token: the agent holds the admin role.
//
// Control ("control"): the same two commands, B started before A made the
// directory (to B it is missing): B's directory is set aside, and the
// server makes its own token.
func TestAttack137_ConcurrentPlantedToken(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (the sandbox's idmapped home)")
	}
	if os.Getenv("TURNSTILE_TOKEN") != "" {
		t.Skip("TURNSTILE_TOKEN is set: the servers would take it")
	}
	const planted = "agent-chosen-admin-token-a137-0123456789"
	const mk = `umask 077; mkdir -p .local/state/turnstile && printf '%s\n' ` + planted + ` > .local/state/turnstile/token`
	for _, c := range []struct {
		name      string
		afterMade bool
	}{{"control", false}, {"b-starts-after-token", true}} {
		t.Run(c.name, func(t *testing.T) {
			home, err := os.MkdirTemp("/home", "turnstile-a137-")
			if err != nil {
				t.Skipf("cannot make a home under /home: %v", err)
			}
			t.Cleanup(func() { os.RemoveAll(home) })
			for _, d := range []string{".local/share", ".local/state"} {
				if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for _, n := range []string{"f0", "f1", "f2", "f3"} {
				if err := syscall.Mkfifo(filepath.Join(home, n), 0o666); err != nil {
					t.Fatal(err)
				}
			}
			type res struct {
				out  string
				code int
			}
			spawn := func(script string) chan res {
				cmd := exec.Command(bin, "sandbox", "--mode", "auto_accept_edits", "--root", home, "--", "/bin/sh", "-c", script)
				cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
				cmd.Dir = home
				var o bytes.Buffer
				cmd.Stdout, cmd.Stderr = &o, &o
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				ch := make(chan res, 1)
				go func() {
					err := cmd.Wait()
					code := 0
					if ee, ok := err.(*exec.ExitError); ok {
						code = ee.ExitCode()
					}
					ch <- res{o.String(), code}
				}()
				return ch
			}
			readFifo := func(name string, done chan res) {
				got := make(chan struct{})
				go func() { os.ReadFile(filepath.Join(home, name)); close(got) }()
				select {
				case <-got:
				case r := <-done:
					t.Fatalf("premise: the command ended before writing %s: %d %s", name, r.code, r.out)
				}
			}
			// Since the fix (sandbox/rootlock.go) commands over one root run one
			// at a time: B cannot start while A runs, so A waits for B's word
			// at most 3 s and goes on (OVERLAP would say B ran meanwhile), B
			// gives it in the background (nobody reads it after A), and in the
			// control B no longer waits for the test's word (A waits for B).
			var a, b chan res
			if c.afterMade {
				a = spawn(mk + ` && echo made > f1 && { if timeout 3 cat f2 >/dev/null; then echo OVERLAP; fi; } && echo A`)
				readFifo("f1", a)
				b = spawn(`{ echo started > f2 & } && cat f3 >/dev/null && ` + mk + ` && echo DONE`)
			} else {
				b = spawn(`echo started > f0 && ` + mk + ` && echo DONE`)
				readFifo("f0", b)
				a = spawn(mk + ` && echo A`)
			}
			ra := <-a
			t.Logf("A: %d %s", ra.code, ra.out)
			if strings.Contains(ra.out, "OVERLAP") {
				t.Errorf("B started while A ran over the same root")
			}
			data := filepath.Join(home, ".local/state/turnstile")
			if b, err := os.ReadFile(filepath.Join(data, "token")); err == nil && strings.Contains(string(b), planted) {
				t.Fatalf("premise: A's token was not set aside")
			}
			if c.afterMade {
				if err := os.WriteFile(filepath.Join(home, "f3"), []byte("go\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			rb := <-b
			t.Logf("B: %d %s", rb.code, rb.out)
			if c.afterMade && !strings.Contains(rb.out, "waiting for another command over the same writable roots") {
				t.Errorf("B, waiting for A, said nothing: %q", rb.out)
			}
			if !strings.Contains(rb.out, "DONE") {
				t.Fatalf("premise: B did not make the directory: %d %s", rb.code, rb.out)
			}
			// The person's first server on its default data directory.
			s := StartServer(t, data)
			status, raw := roAs(s, planted).Request("POST", "/v1/credentials", map[string]any{"name": "agent-made", "role": "admin"})
			t.Logf("POST /v1/credentials with the planted token: %d %s", status, raw)
			if status == http.StatusCreated {
				t.Errorf("two concurrent commands of turnstile sandbox over the home planted %s (B, started while A's stood, did not watch it); the next server took it as its admin token, and the agent created an admin credential with it", filepath.Join(data, "token"))
			}
		})
	}
}
