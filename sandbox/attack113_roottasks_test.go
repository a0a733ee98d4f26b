package sandbox

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack113_WholeTreeTasksUnbounded (hundred-and-thirteenth review):
// the README's processes row bounds a restricted command's tasks by
// RLIMIT_NPROC (commandTaskLimit, "so a fork bomb leaves the server and
// other users the rest"). A command that holds the whole tree under a root
// server keeps kernel uid 0 (a writable "/", or a filesystem left
// unrestricted while the network is confined), and the kernel never applies
// RLIMIT_NPROC to the root user (copy_process: real_cred->user ==
// INIT_USER skips the check, capabilities or not): the helper's setrlimit
// bounds nothing, and the command forks past the bound, as far as the
// machine's pid_max and threads-max, which every other fork on the host
// then fails for.
//
// The bound is lowered to 300 (as TestAttack14CommandTasksBounded does)
// and the command forks 400 sleeping children (they die with the command's
// PID namespace). Control: an ordinary workspace's command (the sandbox
// uid) holds no more than 300.
func TestAttack113_WholeTreeTasksUnbounded(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("uid 0 is a root server's")
	}
	f := requireKernel(t, true)
	was := commandTaskLimit
	commandTaskLimit = func() int { return 300 }
	t.Cleanup(func() { commandTaskLimit = was })
	walkCache.mu.Lock()
	for _, k := range []string{"/", "/\x00deep"} {
		walkCache.m[k] = walkResult{made: time.Now().Add(time.Hour)} // see TestWritableSlashStaysWritable
	}
	walkCache.mu.Unlock()
	t.Cleanup(func() {
		walkCache.mu.Lock()
		walkCache.m = map[string]walkResult{}
		walkCache.mu.Unlock()
	})
	data := visibleWorkspace(t)
	secret := domain.FilesystemEntry{Kind: domain.PathSensitive, Path: data, ResolvedPath: data, Access: domain.AccessDeny, Provenance: domain.ProvenanceSystem}
	// One perl forks the sleeps and counts the processes of the namespace
	// (a shell stops at its first failed fork); as TestAttack14.
	start := func(s *domain.TurnExecutionSecuritySnapshot, n int) int {
		t.Helper()
		r := sh(t, s, "id -u >&2; perl -e 'my $n = 0; for (1.."+strconv.Itoa(n)+") { my $p = fork; last unless defined $p; if (!$p) { sleep 60; exit } $n++ } opendir(my $d, \"/proc\"); print scalar(grep { /^[0-9]+$/ } readdir $d), \"\\n\"'")
		got, err := strconv.Atoi(strings.TrimSpace(string(r.Stdout)))
		if err != nil {
			t.Fatalf("no count: %+v %s", r, r.Stderr)
		}
		t.Logf("uid %s: %d processes", strings.TrimSpace(string(r.Stderr)), got)
		return got
	}
	ws := visibleWorkspace(t)
	// Control: the sandbox uid is bounded.
	plain := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	plain.Sandbox.Filesystem.Entries = append(plain.Sandbox.Filesystem.Entries, secret)
	if got := start(plain, 400); got > 300 {
		t.Fatalf("control: an ordinary workspace's command ran %d processes, past the bound of 300", got)
	}

	slash := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	slash.Sandbox.Filesystem.Entries = append(slash.Sandbox.Filesystem.Entries, secret,
		domain.FilesystemEntry{Kind: domain.PathExplicit, Path: "/", ResolvedPath: "/", Access: domain.AccessWrite, Provenance: domain.ProvenanceTaskCap})
	if got := start(slash, 400); got > 300 {
		t.Errorf("a command granted / for writing (uid 0) ran %d processes, past the bound of 300", got)
	}

	open := snapshotFor(t, domain.ModeFullAccess, ws, f.Kernel)
	open.Sandbox.Filesystem.Entries = append(open.Sandbox.Filesystem.Entries, secret)
	open.Network = domain.NetworkPolicy{Mode: domain.NetworkDisabled} // a profile's ":root" = "write" without a network table
	if got := start(open, 400); got > 300 {
		t.Errorf("a command with an unrestricted filesystem and the network disabled (uid 0) ran %d processes, past the bound of 300", got)
	}
}
