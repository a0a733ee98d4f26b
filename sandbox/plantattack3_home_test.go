package sandbox

import (
	"os"
	"os/exec"
	"testing"
)

// TestAttack3Home (third attack review): a writable root that is a home
// directory (the protected list's shell start-up files exist for this
// case) keeps .bashrc and .profile read-only and sets aside the start-up
// files the list names when a command creates them. But the start-up
// files that exist run more files than the list names: Debian's and
// Ubuntu's default .bashrc sources ~/.bash_aliases, and the default
// .profile puts ~/bin and ~/.local/bin in front of PATH when they exist.
// A command creates ~/.bash_aliases, or ~/bin/git: the person's next
// interactive shell runs the first; their next login shell's `git` is the
// command's program.
func TestAttack3Home(t *testing.T) {
	skel := func(t *testing.T, ws string) {
		for _, n := range []string{".bashrc", ".profile"} {
			b, err := os.ReadFile("/etc/skel/" + n)
			if err != nil {
				missingPrerequisite(t, "no Debian skeleton: %v", err)
			}
			if err := os.WriteFile(ws+"/"+n, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	hostShell := func(t *testing.T, f *plantFixture, args ...string) {
		t.Helper()
		cmd := exec.Command("/bin/bash", args...)
		cmd.Dir = f.ws
		cmd.Env = []string{"HOME=" + f.ws, "PATH=/usr/local/bin:/usr/bin:/bin", "TERM=dumb"}
		out, err := cmd.CombinedOutput()
		t.Logf("host bash %v: err=%v\n%s", args, err, out)
		if exists(f.marker) {
			t.Fatalf("ESCAPE: the host's shell ran the command's program (marker %s exists)", f.marker)
		}
	}
	t.Run("bash_aliases", func(t *testing.T) {
		f := newPlantFixture(t)
		skel(t, f.ws)
		r := sh(t, f.s, "echo '"+f.attackMarkerCmd()+"' > .bash_aliases && echo ok")
		attackReport(t, "command", r)
		if r.ExitCode != 0 {
			t.Fatal("the plant failed")
		}
		hostShell(t, f, "-i", "-c", "true")
	})
	t.Run("local-bin", func(t *testing.T) {
		f := newPlantFixture(t)
		skel(t, f.ws)
		r := sh(t, f.s, "mkdir -p .local/bin && printf '#!/bin/sh\\n"+f.attackMarkerCmd()+"\\nexec /usr/bin/git \"$@\"\\n' > .local/bin/git && chmod +x .local/bin/git && echo ok")
		attackReport(t, "command", r)
		if r.ExitCode != 0 || len(r.Quarantined) != 1 {
			t.Fatal("the plant failed, or was not set aside")
		}
		hostShell(t, f, "-l", "-c", "git status --short")
	})
	// ~/bin, which the default .profile also puts first in PATH, is not
	// protected: a project's bin/ is ordinary. A home directory granted
	// writable keeps it writable (README, doctor's limits).
}
