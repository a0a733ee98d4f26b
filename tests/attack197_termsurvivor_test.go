package tests

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// a197Lingerer holds an exclusive lock on DIR/lock while it lives; with
// CLEAR=1 it first clears its parent-death signal (prctl(PR_SET_PDEATHSIG,
// 0), syscall 157 on x86-64). Once DIR/go exists it writes DIR/after and
// ends.
const a197Lingerer = `use Fcntl qw(:flock);
my ($dir, $clear) = @ARGV;
if ($clear) { syscall(157, 1, 0) == 0 or die "prctl: $!"; }
open(my $l, ">", "$dir/lock") or die; flock($l, LOCK_EX) or die;
open(my $a, ">", "$dir/armed") or die; close $a;
alarm 120;
until (-e "$dir/go") { select(undef, undef, undef, 0.02); }
open(my $f, ">", "$dir/after") or die; print $f "ran after the server stopped\n"; close $f;
`

// TestAttack197_GracefulStopLeavesCommandsRunning (review 197, medium): a
// routine stop of the server (SIGTERM: systemctl stop or restart, an
// upgrade) drains requests and closes the store, but stops none of the
// commands it runs (serve.go: srv.Drain ends waits and streams, "not a
// run"; httpSrv.Shutdown waits 15 s for the /exec in flight, then the
// process exits). What ends them then is only their parent-death signal,
// which a command clears itself (prctl): the README names that only for a
// server "killed with SIGKILL", and says every process a command started
// dies with "the server ... killed outright". So the agent's full_access
// command outlives every restart, with no turn, no timeout and no record,
// as the server's uid on the host's network: it takes the server's port
// while the new one is not up yet and is trusted as the server by the
// hook and `turnstile approvals` (TestAttack197_SurvivingCommandAnswersTheHook
// with SIGKILL; this one with a graceful stop).
//
// Control: the same command without the prctl dies with the stop (its lock
// is released).
func TestAttack197_GracefulStopLeavesCommandsRunning(t *testing.T) {
	if _, err := os.Stat("/usr/bin/perl"); err != nil {
		t.Skip("the command is a perl script")
	}
	run := func(name string, clear bool) (dir string) {
		s := StartServer(t, "")
		agent := roAs(s, s.credential("agent-"+name, "runtime"))
		ws := workspace(t)
		dir = filepath.Join(ws, "d")
		if err := os.Mkdir(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		c := "0"
		if clear {
			c = "1"
		}
		agent.JSON("POST", "/v1/turns", map[string]any{"turn_id": "t-" + name, "workspace_id": "ws", "thread_id": "th-" + name,
			"workspace_root": ws, "cwd": ws, "permission_profile": map[string]any{"mode": "full_access"}}, http.StatusCreated, nil)
		go agent.Do("POST", "/v1/turns/t-"+name+"/exec", map[string]any{"tool_call_id": "linger",
			"argv": []string{"/usr/bin/perl", "-e", a197Lingerer, dir, c}, "cwd": ws, "timeout_ms": 150000})
		waitUntil(t, name+": the command running", func() (bool, string) {
			_, err := os.Stat(filepath.Join(dir, "armed"))
			return err == nil, s.Output()
		})
		if err := s.Stop(); err != nil { // SIGTERM, as systemctl stop sends
			t.Fatalf("%s: stop: %v\n%s", name, err, s.Output())
		}
		return dir
	}
	lockFree := func(dir string) bool {
		f, err := os.Open(filepath.Join(dir, "lock"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
	}

	// Control: a command that keeps its parent-death signal ends with the
	// server.
	ctl := run("control", false)
	pollUntil(t, "control: the command ended with the server", func() bool { return lockFree(ctl) })

	// Fixed (serve stops every command before it waits for the requests
	// in flight: engine.StopAllRuns), the command is dead already; before,
	// it was not.
	dir := run("cleared", true)
	// The server is gone; the agent's command still acts.
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, "the command's answer or its end", func() bool {
		_, err := os.Stat(filepath.Join(dir, "after"))
		return err == nil || lockFree(dir)
	})
	if b, err := os.ReadFile(filepath.Join(dir, "after")); err == nil {
		t.Errorf("a full_access command of the agent outlived a graceful stop (SIGTERM) of the server and acted afterwards: %s", fmt.Sprint(string(b)))
	}
}
