package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"turnstile/domain"
)

// TestAttack138_SandboxedFlockBlocksOtherRoots (hundred-and-thirty-eighth
// review): restricted commands over overlapping writable roots now run one
// at a time through flock(2) on the roots (exclusive) and on every directory
// above them (shared) (rootlock.go). Nothing keeps a sandboxed command from
// taking such a flock itself: Landlock does not mediate flock, seccomp does
// not refuse it, and any directory the command may read is one it can open
// and lock. An agent's auto_accept_edits command over its own workspace
// opens /opt/<dir> (a system read root: readable by every restricted
// command) and takes an exclusive flock on it; every other principal's
// restricted command whose writable root lies under it (another turn's,
// another agent's, the person's `turnstile sandbox`) can no longer take
// its shared lock on that directory, and waits for as long as the agent's
// command runs (up to the 30 minutes' cap, again at every command): a
// denial of service over roots the agent cannot even write.
//
// Fixed: the locks are files in a directory of their own (rootLockDir),
// denied to every restricted turn; the agent's flock on /opt holds nothing
// the victim asks for, and the lock file of /opt cannot be opened
// ("agent-flocks-lock-file": refused, the victim gets its locks).
//
// Here the victim's lock is asked with a context already done: flockCtx
// returns at once, an error iff another holds a conflicting lock (no
// timing).
//
// Control ("control"): the same agent command without the flock: the
// victim's command over its root, which overlaps none of the agent's, takes
// its locks while the agent's runs; and ("control-same-root") a second
// command over the agent's own root does wait (the lock is still one).
func TestAttack138_SandboxedFlockBlocksOtherRoots(t *testing.T) {
	f := requireKernel(t, true)
	for _, c := range []struct {
		name     string
		flock    string // what the agent's command flocks ("": nothing)
		sameRoot bool   // the victim's root is the agent's
	}{{"control", "", false}, {"control-same-root", "", true}, {"agent-flocks-readable-parent", "dir", false}, {"agent-flocks-lock-file", "file", false}} {
		t.Run(c.name, func(t *testing.T) {
			opt, err := os.MkdirTemp("/opt", "turnstile-attack138-")
			if err != nil {
				t.Skipf("cannot make a directory in /opt: %v", err)
			}
			t.Cleanup(func() { os.RemoveAll(opt) })
			mustDo(t, os.Chmod(opt, 0o755))
			victimRoot := filepath.Join(opt, "ws")
			mustDo(t, os.MkdirAll(victimRoot, 0o755))
			ws := visibleWorkspace(t) // the agent's workspace
			mustDo(t, syscall.Mkfifo(ws+"/ready", 0o666), syscall.Mkfifo(ws+"/release", 0o666))
			agent := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
			if c.sameRoot {
				victimRoot = ws
			}
			victim := snapshotFor(t, domain.ModeAutoAcceptEdits, victimRoot, f.Kernel)
			dir, err := rootLockDir()
			if err != nil {
				t.Fatal(err)
			}
			lockFile := lockFileName(dir, opt)
			if fd, err := openLockFile(dir, opt); err != nil {
				t.Fatal(err)
			} else {
				syscall.Close(fd)
			}

			script := `echo up > ready; cat release >/dev/null; echo A`
			switch c.flock {
			case "dir":
				script = `exec 9<` + opt + ` && flock -x 9 && echo locked; ` + script
			case "file": // (a failed exec redirection would end the shell)
				script = `flock -x -n ` + lockFile + ` sh -c 'echo locked; echo up > ready; cat release >/dev/null' || { echo up > ready; cat release >/dev/null; }; echo A`
			}
			p, err := PlanSpawn(agent, SpawnRequest{Argv: []string{"/bin/sh", "-c", script}}, os.Environ())
			if err != nil {
				t.Fatalf("plan: %v", err)
			}
			done := make(chan *Result, 1)
			go func() {
				r, err := Run(context.Background(), p)
				if err != nil {
					t.Errorf("run: %v", err)
				}
				done <- r
			}()
			up := make(chan struct{})
			go func() { os.ReadFile(ws + "/ready"); close(up) }()
			select {
			case <-up:
			case r := <-done:
				t.Fatalf("premise: the agent's command ended before it was up: %+v %q %q", r, r.Stdout, r.Stderr)
			}
			// The victim's command, over a root the agent's does not
			// overlap: does it get its locks now?
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			lock, lerr := LockWritableRoots(ctx, victim)
			lock.Release()
			os.WriteFile(ws+"/release", []byte("go\n"), 0o644)
			r := <-done
			WaitCleanup()
			if r == nil || !strings.Contains(string(r.Stdout), "A") {
				t.Fatalf("premise: the agent's command: %+v", r)
			}
			if c.flock == "dir" && !strings.Contains(string(r.Stdout), "locked") {
				t.Fatalf("premise: the agent's flock: %q %q", r.Stdout, r.Stderr)
			}
			if c.flock == "file" && strings.Contains(string(r.Stdout), "locked") {
				t.Errorf("the agent's command took the lock file of %s (%s) itself", opt, lockFile)
			}
			if c.sameRoot {
				if lerr == nil {
					t.Errorf("control: a second command over the running command's own root got its locks")
				}
				return
			}
			if lerr != nil {
				t.Errorf("another principal's command over %s (a root the agent cannot write) cannot take its locks while the agent's command runs: %v (the agent's sandboxed command holds a flock on %s)", victimRoot, lerr, opt)
			}
		})
	}
}
