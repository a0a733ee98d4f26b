package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack9HeldGitConfigReplacedWhileRunning: the workspace's .git/config
// is read-only to a command (a bind mount on its directory entry), and the
// after-command check trusts a held repository's config: the command
// cannot have changed it. But git writes its config as config.lock renamed
// over config, and when the person's git does so while the command runs
// (git push -u, git remote add, git branch -u; an editor's git
// integration), the kernel detaches the read-only mount from the command's
// namespace with the entry it sat on. The command, waiting for it in the
// background of a long run, then writes core.fsmonitor into the new
// config, and the person's next git status runs it.
//
// Control: the same host change under a command that writes nothing
// leaves the repository as it is: what the person's config held before
// (core.hooksPath here) stays theirs, and what git added is trusted.
func TestAttack9HeldGitConfigReplacedWhileRunning(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	// The person's config names a program of theirs (husky's hooks).
	for _, args := range [][]string{{"init", "-q", ws}, {"-C", ws, "config", "core.hooksPath", ".husky/_"}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel, filepathDir(testExe(t)))
	// The command waits until the host's git changed the config, then
	// (attack) appends to it.
	during := func(remote string, attack bool) *Result {
		// The command says it runs (a file in the root) before it waits.
		started := ws + "/started-" + remote
		script := "cd " + ws + "; touch " + started + "; for i in $(seq 1 100); do grep -q " + remote + " .git/config && break; sleep 0.05; done"
		if attack {
			script += "; printf '[core]\\n\\tfsmonitor = touch " + ws + "/pwned\\n' >> .git/config && echo wrote"
		}
		done := make(chan *Result, 1)
		go func() {
			r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", script}}, nil)
			if err != nil {
				r = &Result{ExitCode: -1, Stderr: []byte(err.Error())}
			}
			done <- r
		}()
		// The person's git runs once the command does (under load the
		// command's start took longer than the fixed wait there was).
		waitFor(t, started)
		if out, err := exec.Command("git", "-C", ws, "remote", "add", remote, "https://example.com/"+remote).CombinedOutput(); err != nil {
			t.Fatalf("git remote add: %v %s", err, out)
		}
		return <-done
	}

	r := during("upstream", false)
	if len(r.Quarantined) != 0 || !exists(ws+"/.git/HEAD") || !strings.Contains(readFile(t, ws+"/.git/config"), "upstream") {
		t.Fatalf("control: the person's own config change during a command: %+v", r.Quarantined)
	}
	r = during("fork", true)
	if !strings.Contains(string(r.Stdout), "wrote") {
		t.Fatalf("the command could not write the replaced config: exit %d %s %s", r.ExitCode, r.Stdout, r.Stderr)
	}
	cfg, _ := os.ReadFile(ws + "/.git/config")
	if exists(ws+"/.git/HEAD") && strings.Contains(string(cfg), "fsmonitor") {
		t.Errorf("the command wrote core.fsmonitor into the workspace's .git/config once the person's git had replaced it, and the repository was left in use (quarantined: %+v)", r.Quarantined)
	}
}

// TestAttack9NestedRepoRemadeUnderAConcurrentCommand: the same through two
// commands of one turn at once, with no host program involved. A makes a
// repository whose config runs a program and lingers; B starts while it
// exists, so B's view holds it (its config and hooks read-only) and B's
// check trusts it as one B could not change. A ends and its check sets
// the repository's HEAD, config and hooks aside; B's read-only mount of
// the config goes with the renamed file, and B writes a new HEAD and a
// config with core.fsmonitor, which B's check, trusting a held
// repository, leaves in use.
//
// Control: A's repository is quarantined.
func TestAttack9NestedRepoRemadeUnderAConcurrentCommand(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel, filepathDir(testExe(t)))
	forgetWalks()
	cmd := func(script string, out chan<- *Result) {
		r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "cd " + ws + "; " + script}}, nil)
		if err != nil {
			r = &Result{ExitCode: -1, Stderr: []byte(err.Error())}
		}
		out <- r
	}
	a, b := make(chan *Result, 1), make(chan *Result, 1)
	go cmd("git init -q nested && git -C nested config core.fsmonitor 'touch "+ws+"/pwned' && touch a-done && "+
		"for i in $(seq 1 200); do [ -e b-started ] && break; sleep 0.05; done", a)
	waitFor(t, ws+"/a-done")
	forgetWalks()
	go cmd("touch b-started; for i in $(seq 1 200); do [ -e nested/.git/config.turnstile-untrusted ] && break; sleep 0.05; done; "+
		"echo 'ref: refs/heads/main' > nested/.git/HEAD && printf '[core]\\n\\tfsmonitor = touch "+ws+"/pwned\\n' > nested/.git/config && echo wrote", b)
	ra, rb := <-a, <-b
	if len(ra.Quarantined) == 0 {
		t.Fatalf("control: A's repository was not quarantined: %+v", ra)
	}
	if !strings.Contains(string(rb.Stdout), "wrote") {
		t.Fatalf("B could not remake the repository: exit %d %s %s", rb.ExitCode, rb.Stdout, rb.Stderr)
	}
	cfg, _ := os.ReadFile(ws + "/nested/.git/config")
	if exists(ws+"/nested/.git/HEAD") && strings.Contains(string(cfg), "fsmonitor") {
		t.Errorf("B remade the repository A's check set aside, with core.fsmonitor, and it was left in use (B's quarantine: %+v)", rb.Quarantined)
	}
}
