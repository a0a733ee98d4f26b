package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestAttack12SetAsideNamesTaken (twelfth attack review): an untrusted
// repository is set aside by renaming its HEAD to HEAD.turnstile-untrusted,
// or, when that name is taken, to HEAD.turnstile-untrusted.1, .2, … up to
// .99; past them the rename failed, the result only named the failure, and
// the repository stayed as the command left it, its config with it.
func TestAttack12SetAsideNamesTaken(t *testing.T) {
	f := newPlantFixture(t)
	taken := "touch sub/.git/HEAD.turnstile-untrusted; i=1; while [ $i -le 99 ]; do touch sub/.git/HEAD.turnstile-untrusted.$i; i=$((i+1)); done; "
	r := sh(t, f.s, agentGit+"init -q sub && "+f.fsmonitor()+" >> sub/.git/config && "+taken+
		agentGit+"init -q plain && touch plain/.git/HEAD.turnstile-untrusted && "+f.fsmonitor("-plain")+" >> plain/.git/config && echo ok")
	attackReport(t, "command", r)
	if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("the command failed (%d): %s", r.ExitCode, r.Stderr)
	}
	if exists(f.ws + "/plain/.git/HEAD") {
		t.Fatalf("control: a repository whose first set-aside name was taken was not set aside: %+v", r.Quarantined)
	}
	attackHostStatus(t, f, f.ws+"/plain")
	attackHostStatus(t, f, f.ws+"/sub")
}

// TestAttack12SetAsideUnwritable (twelfth attack review), the same under a
// server that is not root, whose commands run as its own user: the command
// made the repository's git dir read-only (chmod 555), the server, obeying
// the mode, could not rename its HEAD, and the repository stayed. Control:
// the same repository left writable is set aside.
func TestAttack12SetAsideUnwritable(t *testing.T) {
	if os.Geteuid() == 0 {
		// Root renames in any directory: run this test again, in a copy
		// of the test binary, as a user made for it.
		asTestUser(t, "^TestAttack12SetAsideUnwritable$")
		return
	}
	f := newPlantFixture(t)
	t.Cleanup(func() { exec.Command("chmod", "-R", "u+rwx", f.ws).Run() }) // for TempDir's removal
	r := sh(t, f.s, agentGit+"init -q sub && "+f.fsmonitor()+" >> sub/.git/config && chmod 555 sub/.git && "+
		agentGit+"init -q plain && "+f.fsmonitor("-plain")+" >> plain/.git/config && echo ok")
	attackReport(t, "command", r)
	if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("the command failed (%d): %s", r.ExitCode, r.Stderr)
	}
	if exists(f.ws + "/plain/.git/HEAD") {
		t.Fatalf("control: a writable untrusted repository was not set aside: %+v", r.Quarantined)
	}
	attackHostStatus(t, f, f.ws+"/plain")
	attackHostStatus(t, f, f.ws+"/sub")
}
