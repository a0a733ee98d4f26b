package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack83HookInstallRefusesSystemLink (eighty-third review, low: a
// false deny of the seventy-sixth review's fix). `turnstile hook install
// claude-code` opens the project with openRootNoLinks (cmd/turnstile/hook.go),
// which refuses a symlink at ANY component of the project's path, from /,
// whoever owns it and whoever may write the directory that holds it. A
// person installing the hooks in their own project, in their own home, is
// refused when a system directory above it is a link the agent could
// never have made: Fedora Silverblue/Kinoite/CoreOS and other ostree
// systems ship /home -> var/home (and /root -> var/roothome, /opt, /srv,
// /mnt the same way), and many people keep ~/src as a link to a data disk.
// The plain `turnstile hook install claude-code` (default --project ., read
// from $PWD, the shell's logical path, by os.Getwd) and `--project
// ~/proj` both fail there with "passes through the symlink /home".
//
// The seventy-sixth review's attack needs a link the agent can plant: one
// in a directory the agent may write (its ~/src), not one in a directory
// only root may write (/, /var) or owned by the installing user.
//
// Fix: refuse a link only where another user could have made or replaced
// it (a link whose parent directory is writable by anyone but root and the
// installing user, or a link owned by another user), or resolve the path
// and judge the directory it leads to (its owner the installing user's or
// the project's); keep refusing the seventy-sixth review's planted link.
//
// Setup: a root-owned tree standing for /, with home -> var/home (a link
// made by root in a directory only root may write, as ostree's is), and
// the person's project var/home/alice/proj.
//
// Control: the same install by the resolved path succeeds.
// Attack (false deny): the install from the project's directory as the
// shell names it (cwd and $PWD through the link), and with --project
// naming it so, is refused.
func TestAttack83HookInstallRefusesSystemLink(t *testing.T) {
	t.Parallel()
	sys := t.TempDir() // stands for /: root's, mode 0700
	real := filepath.Join(sys, "var", "home", "alice", "proj")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	// /home -> var/home, as ostree systems ship it: root's link in root's
	// directory, which no agent can plant or replace.
	if err := os.Symlink("var/home", filepath.Join(sys, "home")); err != nil {
		t.Fatal(err)
	}
	viaLink := filepath.Join(sys, "home", "alice", "proj")
	install := func(dir string, project ...string) (string, int) {
		t.Helper()
		args := append([]string{"hook", "install", "claude-code", "--server", "http://127.0.0.1:1", "--server-user", "0", "--server-key", testKey}, project...)
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		// The shell's logical path: what os.Getwd (filepath.Abs(".")) takes.
		cmd.Env = append(cleanEnv(), "PWD="+dir, "HOME="+filepath.Join(sys, "var", "home", "alice"))
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(o.String() + e.String()), code
	}
	settings := filepath.Join(real, ".claude", "settings.json")

	// Control: by its resolved path, the project gets the hooks.
	if out, code := install(real); code != 0 {
		t.Fatalf("control: hook install in %s: exit %d: %s", real, code, out)
	}
	if got, err := os.ReadFile(settings); err != nil || !strings.Contains(string(got), "hook claude-code") {
		t.Fatalf("control: the project's settings after install: %v\n%s", err, got)
	}
	if err := os.RemoveAll(filepath.Join(real, ".claude")); err != nil {
		t.Fatal(err)
	}

	// The person's own project, named as their shell names it.
	if out, code := install(viaLink); code != 0 {
		t.Errorf("hook install claude-code, run in the person's own project %s (its path through root's /home -> var/home link): exit %d: %s", viaLink, code, out)
	}
	if out, code := install(sys, "--project", viaLink); code != 0 {
		t.Errorf("hook install claude-code --project %s (through root's /home -> var/home link): exit %d: %s", viaLink, code, out)
	}
}
