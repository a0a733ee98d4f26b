package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack46ProgramWordAfterOtherWrappers: commandStart knows the word
// after a prefix command as a program only for the eleven names of
// prefixCommands, with options that take no argument, a number, or an
// argument after -a, -s or -n. Other programs that run their next word
// (stdbuf, ionice, taskset, flock, chrt, find -exec, script -c), and a
// listed one with an option's argument of another shape (stdbuf -o L,
// xargs -I {}, xargs -d ,) leave the program word in a secret
// assignment's shape hidden:
//
//	flock l my-secret=bin/deployAll        shown: flock l my-secret=[redacted]
//
// The file my-secret=bin/deployAll is one the agent wrote in the
// workspace; each case is run with bash and dash.
//
// Control: a valid assignment's secret in front of such a wrapper stays
// hidden.
func TestAttack46ProgramWordAfterOtherWrappers(t *testing.T) {
	const v = "Zq8vLw3nR2tK9pXs"
	if s := attack42ShownBash(t, "MY_SECRET="+v+" flock l ./deploy.sh"); strings.Contains(s, v) {
		t.Fatalf("control: the secret is shown:\n%s", s)
	}
	const file = "my-secret=bin/deployAll"
	for _, cmd := range []string{
		"stdbuf -o L " + file,
		"echo a | xargs -I {} " + file + " {}",
		"echo a | xargs -d , " + file,
		"ionice -c 3 " + file,
		"taskset 1 " + file,
		"flock l " + file,
		"chrt -o 0 " + file,
		"find . -maxdepth 0 -exec " + file + " \\;",
		"script -q -c " + file + " /dev/null",
	} {
		prog := strings.Fields(cmd)[0]
		if strings.HasPrefix(cmd, "echo a | ") {
			prog = "xargs"
		}
		if _, err := exec.LookPath(prog); err != nil {
			continue
		}
		for _, shell := range []string{"bash", "dash"} {
			sh, err := exec.LookPath(shell)
			if err != nil {
				continue
			}
			dir := t.TempDir()
			mark := filepath.Join(dir, "AGENT-CODE-RAN")
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(file)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, file), []byte("#!/bin/sh -\ntouch "+mark+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			x := exec.Command(sh, "-c", cmd)
			x.Dir = dir
			x.Env = append(os.Environ(), "SHELL=/bin/sh")
			_, _ = x.CombinedOutput()
			if _, err := os.Stat(mark); err != nil {
				t.Fatalf("premise: %s does not run %s in %q", shell, file, cmd)
			}
		}
		for _, s := range []string{attack42ShownBash(t, cmd), shownExec(t, map[string]any{"cmd": cmd})} {
			if !strings.Contains(s, "bin/deployAll") {
				t.Errorf("%s\nruns ./%s, and the approval request hides it:\n%s", cmd, file, s)
			}
		}
	}
}
