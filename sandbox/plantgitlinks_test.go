package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// TestGitDirLinksSetAside: a link the command makes anywhere in a git dir
// (a directory git writes below, logs; a reflog deep below it) is removed
// after the command, whichever the person's git would write through next.
// Controls: a link the command makes in the work tree stays, and so does a
// link the person made in the git dir before a command that did not touch
// the git dir.
func TestGitDirLinksSetAside(t *testing.T) {
	requireRoot(t)
	f := requireKernel(t, true)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	base := visibleWorkspace(t)
	ws, host := base+"/ws", base+"/host"
	mkfiles(t, base, map[string]string{"ws/README": "x\n", "host/keep": "k\n"})
	attack6GitRepo(t, ws, "")
	hostGit(t, ws, "checkout", "-q", "-b", "side")
	hostGit(t, ws, "checkout", "-q", "main")
	// The person's own link in the git dir, made before the command.
	personLink := filepath.Join(ws, ".git", "person-link")
	if err := os.Symlink("../README", personLink); err != nil {
		t.Fatal(err)
	}
	// The check reads change times to the whole second: the command starts
	// in a later second than the person's link was made (the condition the
	// check compares, not a stand-in for an event).
	var st unix.Stat_t
	if err := unix.Lstat(personLink, &st); err != nil {
		t.Fatal(err)
	}
	for time.Now().Unix() <= st.Ctim.Sec {
		runtime.Gosched()
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)

	// Control: a command that writes in the work tree only, a link too.
	r := sh(t, s, `ln -s README worktree-link && echo MADE`)
	if !strings.Contains(string(r.Stdout), "MADE") {
		t.Fatalf("premise: %s %s", r.Stdout, r.Stderr)
	}
	for _, p := range []string{ws + "/worktree-link", personLink} {
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("control: %s is gone or no link: %v (quarantined %v)", p, err, quarantined(r))
		}
	}

	r = sh(t, s, `rm .git/logs/refs/heads/side && ln -s `+host+`/keep .git/logs/refs/heads/side && `+
		`mv .git/logs .git/logs.old && ln -s `+host+` .git/logs && echo PLANTED`)
	if !strings.Contains(string(r.Stdout), "PLANTED") {
		t.Fatalf("premise: %s %s", r.Stdout, r.Stderr)
	}
	q := quarantined(r)
	for _, p := range []string{ws + "/.git/logs", ws + "/.git/logs.old/refs/heads/side"} {
		if !slices.Contains(q, p) {
			t.Errorf("%s, a link the command made in the git dir, is not named in the result: %v", p, q)
		}
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			t.Errorf("%s is still a link", p)
		}
	}
	// The person's git then writes inside the git dir only.
	hostGit(t, ws, "checkout", "-q", "side")
	if b, _ := os.ReadFile(host + "/keep"); string(b) != "k\n" {
		t.Errorf("the host file changed: %q", b)
	}
	if ents, _ := os.ReadDir(host); len(ents) != 1 {
		t.Errorf("the person's git wrote into %s: %v", host, ents)
	}
}
