package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// TestAttack80PersonsKeyMadeDuringACommandIsSetAsideForTheAgent
// (eightieth review, medium: a false deny that declassifies): watchDenied
// sets aside a deny entry missing when a command starts that exists after
// it, as "made by the command"; it never asks who made it. The person's
// own tooling that writes the secret the deny is there for (a deploy
// script writing keys/prod/key, a `vault read` into it) while an agent's
// command runs (a test run, a build, a command that simply waits) has its
// file renamed to keys/prod.turnstile-untrusted: the deploy breaks (false
// deny), and the key now lies at a name no deny entry covers, inside the
// writable root, where every later command of the agent reads it — the
// README's known limit (a deny path created while a command runs is not
// masked during it) made permanent by the server itself. The command here
// touches nothing: it waits, on a FIFO, for the person's write.
//
// Control: a key the person wrote before the command started is masked
// from the next command and stays where it is.
//
// Fix: set aside only what the command made: compare the owner (the
// command's files belong to the sandbox's uid where it differs from the
// person's), or the inode's birth against the command's span and its
// writers (fanotify/mount-ns tracking), or, simplest, keep the set-aside
// copy in the deny (mask any name the denied path was set aside to,
// moving it outside every writable root, e.g. into the data directory).
func TestAttack80PersonsKeyMadeDuringACommandIsSetAsideForTheAgent(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	ws := visibleWorkspace(t) + "/ws"
	if err := os.MkdirAll(ws+"/early/keys/prod", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ws+"/early/keys/prod/key", []byte("person's early secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(ws+"/go", 0o666); err != nil {
		t.Fatal(err)
	}
	s := execProfileSnapshot(t, ws, map[string]domain.Access{
		ws + "/early/keys/prod": domain.AccessDeny,
		ws + "/held/keys/prod":  domain.AccessDeny,
	})
	p, err := PlanSpawn(&s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "read x < go; echo waited"}}, os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	type res struct {
		r   *Result
		err error
	}
	done := make(chan res, 1)
	go func() {
		r, err := Run(context.Background(), p)
		WaitCleanup()
		done <- res{r, err}
	}()
	// The FIFO opens for writing once the command opened it for reading:
	// the command has started.
	f, err := os.OpenFile(ws+"/go", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The person's tooling writes the key now.
	if err := os.MkdirAll(ws+"/held/keys/prod", 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ws+"/held/keys/prod/key", []byte("person's secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("go\n"))
	f.Close()
	out := <-done
	if out.err != nil {
		t.Fatalf("run: %v", out.err)
	}
	t.Logf("command: exit %d, stdout %q, set aside %+v", out.r.ExitCode, out.r.Stdout, out.r.Quarantined)
	// The agent's next command.
	r := sh(t, &s, `cat early/keys/prod/key; for f in early/keys/prod*/key held/keys/prod*/key; do echo "$f: $(cat $f)"; done`)
	t.Logf("next command: stdout %q, stderr %q", r.Stdout, r.Stderr)
	// Control: the key the person wrote before is masked and in place.
	if strings.Contains(string(r.Stdout), "early secret") || readFile(t, ws+"/early/keys/prod/key") != "person's early secret\n" {
		t.Fatalf("control: the person's earlier key was read by the next command, or moved")
	}
	if got, err := os.ReadFile(ws + "/held/keys/prod/key"); err != nil || string(got) != "person's secret\n" {
		moved, _ := filepath.Glob(ws + "/held/keys/prod*")
		t.Errorf("the person's key written while the command ran was set aside as the command's (false deny): now %v", moved)
	}
	if strings.Contains(string(r.Stdout), "person's secret") {
		t.Errorf("the agent's next command read the person's key at its set-aside name: %q", r.Stdout)
	}
}
