package sandbox

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack166_DeepSocketLinkRefusesEveryTurn (review 166, low: denial of
// service): a command hard-links a host socket bound while it ran (the
// README's known limit for that one command) into a directory deeper than
// the walk goes (a/b/c/d/e/f/g/, depth 7). The check after it
// (socklinks.go removeHostSocketLinks: walkTree, depth 6) does not find
// the link, so it stays (the README: "a hard link a command made to a
// host's socket is removed after it"); and from then on hostSocketMasks
// (sockmask.go) refuses EVERY restricted command on the machine, of every
// turn, whatever its roots: a listener whose bound name has 2 links and
// whose second name the walk of the command's own roots does not find
// is refused, and for a turn over another project that walk never could
// find it. One agent's command stops every other agent's turn (other
// projects, other people's turns through the same server) until a person
// finds and removes a file seven directories deep.
//
// Fix: the check after a command removes a host listener's other names
// wherever in the command's writable roots it made them (a walk of the
// directories the command changed, without the depth bound, or unlink by
// inode); and a command whose own roots and view cannot reach the extra
// name (it lies outside its view, or is masked) is not refused for it.
//
// Control: the unrelated turn's command runs before the link is made.
func TestAttack166_DeepSocketLinkRefusesEveryTurn(t *testing.T) {
	requireRoot(t)
	f := requireKernel(t, true)
	exeDir := filepathDir(testExe(t))
	ws := visibleWorkspace(t)
	other := visibleWorkspace(t) // another project, another turn
	if err := os.Mkdir(ws+"/run", 0o755); err != nil {
		t.Fatal(err)
	}
	sock := ws + "/run/svc.sock"
	deep := ws + "/a/b/c/d/e/f/g/x.sock"
	wide := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel, exeDir)
	unrelated := snapshotFor(t, domain.ModeAutoAcceptEdits, other, f.Kernel, exeDir)
	runs := func() (bool, string) {
		r, err := run(t, unrelated, SpawnRequest{Argv: []string{"/bin/sh", "-c", "echo RAN"}}, nil)
		if err != nil || r == nil {
			return false, fmt.Sprint("refused: ", err)
		}
		return strings.Contains(string(r.Stdout), "RAN"), string(r.Stdout) + string(r.Stderr)
	}
	if ok, out := runs(); !ok {
		t.Fatalf("control: the unrelated turn's command did not run before the link: %s", out)
	}
	// Closed (and the link removed) as soon as the test is done: while it
	// lives, every restricted command on this machine is refused.
	defer os.Remove(deep)
	a := whileHostBinds(t, wide, ws, sock, "mkdir -p "+filepathDir(deep)+" && ln "+sock+" "+deep+" && echo LINKED", func() {
		listenUnix(t, sock)
	})
	if a == nil || !strings.Contains(string(a.Stdout), "LINKED") {
		t.Fatalf("premise: the link failed: %+v", a)
	}
	if _, err := os.Lstat(deep); err == nil {
		t.Errorf("the hard link %s the command made to the host's socket was not removed after it", deep)
	}
	if ok, out := runs(); !ok {
		t.Errorf("a command of an unrelated turn (root %s) is refused because another turn's command linked a host socket deep in %s: %s", other, ws, strings.TrimSpace(out))
	}
}
