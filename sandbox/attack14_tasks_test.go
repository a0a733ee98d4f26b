package sandbox

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack14CommandTasksBounded (fourteenth attack review): a sandboxed
// command runs in a PID namespace of its own, under a root server as
// SandboxUID, and nothing bounded how many tasks it started while it ran:
// a fork bomb took the machine's process ids and threads until its
// timeout, and every fork failed meanwhile, the server's and other turns'
// included. Here the bound is lowered to 300 and the command starts 400
// processes; it must hold no more than the bound. Control: a command that
// starts 50 runs them all.
func TestAttack14CommandTasksBounded(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("TestAttack14CommandTasksBoundedNotRoot runs it as another user")
	}
	commandTasksBounded(t)
}

// TestAttack14CommandTasksBoundedNotRoot: the same under a server that is
// not root, whose commands run as its own user in user namespaces of their
// own (the bound is then each command's).
func TestAttack14CommandTasksBoundedNotRoot(t *testing.T) {
	if os.Geteuid() == 0 {
		asTestUser(t, "^TestAttack14CommandTasksBoundedNotRoot$")
		return
	}
	commandTasksBounded(t)
}

func commandTasksBounded(t *testing.T) {
	f := requireKernel(t, true)
	was := commandTaskLimit
	commandTaskLimit = func() int { return 300 }
	t.Cleanup(func() { commandTaskLimit = was })
	ws := tempWorkspace(t)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	// One perl forks the sleeps and counts the processes of the
	// namespace (a shell stops at its first failed fork).
	start := func(n int) int {
		t.Helper()
		r := sh(t, s, "perl -e 'my $n = 0; for (1.."+strconv.Itoa(n)+") { my $p = fork; last unless defined $p; if (!$p) { sleep 60; exit } $n++ } opendir(my $d, \"/proc\"); print scalar(grep { /^[0-9]+$/ } readdir $d), \"\\n\"'")
		got, err := strconv.Atoi(strings.TrimSpace(string(r.Stdout)))
		if err != nil {
			t.Fatalf("no count: %+v %s", r, r.Stderr)
		}
		return got
	}
	// Control: 50 sleeps and the shell.
	if got := start(50); got < 51 {
		t.Fatalf("control: the command ran %d processes of 51", got)
	}
	if got := start(400); got > 300 {
		t.Fatalf("the command ran %d processes, past the bound of 300", got)
	}
}
