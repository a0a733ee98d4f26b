package sandbox

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestGitDirLinksSetAside: a link the command makes anywhere in a git dir
// (a directory git writes below, logs; a reflog deep below it) is removed
// after the command, whichever the person's git would write through next.
// Control: a link the command makes in the work tree stays. (A person's
// .git/hooks or config linked elsewhere refuses the command at its spawn:
// the protected list's own rule.)
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
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)

	// Control: a command that writes in the work tree only, a link too.
	r := sh(t, s, `ln -s README worktree-link && echo MADE`)
	if !strings.Contains(string(r.Stdout), "MADE") {
		t.Fatalf("premise: %s %s", r.Stdout, r.Stderr)
	}
	for _, p := range []string{ws + "/worktree-link"} {
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

// TestGitDirPastBoundQuarantined: a git dir with more directories than
// the check looks through is quarantined whole (its HEAD set aside), not
// passed with a link beyond the bound (the hundred-and-twenty-second
// review). Control: the same repository under the bound keeps its HEAD.
func TestGitDirPastBoundQuarantined(t *testing.T) {
	requireRoot(t)
	f := requireKernel(t, true)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	defer func(n int) { maxGitLinkDirs = n }(maxGitLinkDirs)
	maxGitLinkDirs = 64
	for _, c := range []struct {
		name string
		dirs int
	}{{"control", 8}, {"past", 80}} {
		t.Run(c.name, func(t *testing.T) {
			ws := visibleWorkspace(t) + "/ws"
			mkfiles(t, ws, map[string]string{"README": "x\n"})
			attack6GitRepo(t, ws, "")
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
			r := sh(t, s, `mkdir .git/pad && cd .git/pad && i=0; while [ $i -lt `+strconv.Itoa(c.dirs)+` ]; do mkdir d$i; i=$((i+1)); done; echo MADE`)
			if !strings.Contains(string(r.Stdout), "MADE") {
				t.Fatalf("premise: %s %s", r.Stdout, r.Stderr)
			}
			_, err := os.Lstat(ws + "/.git/HEAD")
			gone := slices.Contains(quarantined(r), ws+"/.git") && err != nil
			if c.name == "past" && !gone {
				t.Errorf("a git dir of more than %d directories was not quarantined: %v (HEAD: %v)", maxGitLinkDirs, quarantined(r), err)
			}
			if c.name == "control" && (gone || err != nil) {
				t.Errorf("control: a git dir under the bound was quarantined: %v (HEAD: %v)", quarantined(r), err)
			}
		})
	}
}
