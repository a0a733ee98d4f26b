package tests

import (
	"os"
	"strings"
	"testing"
)

// TestAttack26DeepTempDirOutlivesCommand: a restricted command gets a
// private temp dir, "removed afterwards" (REFERENCE §4), by the server's
// os.RemoveAll once the command has ended. os.RemoveAll holds a
// descriptor for each level of the tree it removes: a supervised command
// (nothing else writable) that leaves in its temp dir a chain of
// directories deeper than the server's descriptor limit makes the removal
// fail (EMFILE, not logged), and the whole tree stays in the host's /tmp
// for good, past the command, the turn and the server's own clean stop,
// which waits for the removals. Each command can leave one more, of any
// size (a chain 2,000 deep here; under a limit of 1,048,576, a million
// levels, a few megabytes of path per command). While the removal
// descends, every descriptor of the server is taken: its listener, its
// egress proxy and its other commands' spawns fail for that time.
// Wanted: a command's temp dir is gone when the command's cleanup ends,
// whatever its depth (removed without a descriptor per level, or the
// command's tree bounded). Control: a shallow temp dir of the same server
// is removed.
func TestAttack26DeepTempDirOutlivesCommand(t *testing.T) {
	t.Parallel()
	s := startServer(t, &Server{Bin: nofileBin(t, 1024), Data: t.TempDir()})
	root := workspace(t)
	s.startTurn("d26", "ws", "supervised", root)

	ctl := s.execApproved("d26", "shallow", map[string]any{"timeout_ms": 60000, "argv": []string{"sh", "-c",
		`mkdir -p "$TMPDIR/a/b/c" && echo x > "$TMPDIR/a/b/c/f" && echo "$TMPDIR"`}})
	deep := s.execApproved("d26", "deep", map[string]any{"timeout_ms": 120000, "argv": []string{"sh", "-c",
		`p=$(printf 'd/%.0s' $(seq 1 1000)) && cd "$TMPDIR" && for i in 1 2; do mkdir -p "$p" && cd "$p" || exit 1; done; echo "$TMPDIR"`}})
	if !ctl.Ran || ctl.Result == nil || ctl.Result.ExitCode != 0 || !deep.Ran || deep.Result == nil || deep.Result.ExitCode != 0 {
		t.Fatalf("the commands: %+v %+v; %+v %+v", ctl, ctl.Result, deep, deep.Result)
	}
	ctlTmp, deepTmp := strings.TrimSpace(ctl.Result.Stdout), strings.TrimSpace(deep.Result.Stdout)
	if !strings.HasPrefix(ctlTmp, "/") || !strings.HasPrefix(deepTmp, "/") {
		t.Fatalf("the temp dirs: %q %q", ctlTmp, deepTmp)
	}
	t.Cleanup(func() { os.RemoveAll(deepTmp) }) // the test's own removal, not bound by the server's limit
	// A clean stop waits for every command's cleanup (serve: WaitCleanup).
	if err := s.Stop(); err != nil {
		t.Fatalf("stop: %v\n%s", err, s.Output())
	}
	if exists(ctlTmp) {
		t.Fatalf("control: the shallow temp dir %s outlived the server's clean stop", ctlTmp)
	}
	if exists(deepTmp) {
		t.Fatalf("a supervised command's private temp dir %s, holding a chain 2,000 directories deep, outlives the command and the server's clean stop (os.RemoveAll ran out of the server's 1,024 descriptors)", deepTmp)
	}
}
