package sandbox

import (
	"os"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack9ProtectedPathCreatedUnderAConcurrentCommand: a protected path
// (a tool setting a host program runs, here .vscode) that a command creates
// is set aside after it, because it was missing when the command started.
// Two commands of one turn at once: A creates .vscode and lingers; B starts
// while it exists, so B's view keeps it read-only and B's after-command
// check does not count it as missing. A ends and its check renames .vscode
// aside on the host; B's read-only mount moves with the renamed directory,
// the name is free in B's view, and B creates .vscode/tasks.json, which no
// check sets aside.
//
// Controls: A's .vscode is set aside; a single command that creates
// .vscode has it set aside.
func TestAttack9ProtectedPathCreatedUnderAConcurrentCommand(t *testing.T) {
	f := requireKernel(t, true)
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel, filepathDir(testExe(t)))

	// Control: one command alone.
	r := sh(t, s, "mkdir "+ws+"/.vscode && echo x > "+ws+"/.vscode/tasks.json")
	if exists(ws+"/.vscode") || len(r.Quarantined) == 0 {
		t.Fatalf("control: a .vscode one command created stayed: %+v", r.Quarantined)
	}
	os.RemoveAll(ws + "/.vscode" + domain.UntrustedSuffix)

	cmd := func(script string, out chan<- *Result) {
		r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", "cd " + ws + "; " + script}}, nil)
		if err != nil {
			r = &Result{ExitCode: -1, Stderr: []byte(err.Error())}
		}
		out <- r
	}
	ac, bc := make(chan *Result, 1), make(chan *Result, 1)
	// A lingers until B has started (B's marker), so that B's view is
	// built while A's .vscode exists.
	go cmd("mkdir .vscode && echo a > .vscode/tasks.json && for i in $(seq 1 200); do [ -e b-started ] && break; sleep 0.05; done", ac)
	waitFor(t, ws+"/.vscode")
	go cmd("touch b-started; for i in $(seq 1 200); do [ -e .vscode.turnstile-untrusted ] && break; sleep 0.05; done; "+
		"mkdir -p .vscode && echo evil > .vscode/tasks.json && echo wrote", bc)
	a, b := <-ac, <-bc
	if len(a.Quarantined) == 0 {
		t.Fatalf("control: A's .vscode was not set aside: %+v", a)
	}
	if !strings.Contains(string(b.Stdout), "wrote") {
		t.Fatalf("B could not make .vscode: exit %d %s %s", b.ExitCode, b.Stdout, b.Stderr)
	}
	if got, err := os.ReadFile(ws + "/.vscode/tasks.json"); err == nil && strings.Contains(string(got), "evil") {
		t.Errorf("a .vscode/tasks.json made by a command that started while another's .vscode existed stayed (B's quarantine: %+v)", b.Quarantined)
	}
}

// waitFor waits (up to 10 s) until p exists.
func waitFor(t *testing.T, p string) {
	t.Helper()
	for range 1000 {
		if exists(p) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s did not appear", p)
}
