package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack44ProgramWordAfterKeywords: programWord (the forty-second
// review's fix) keeps in view a secret assignment's shape that is the
// word a shell runs, but commandStart knows a command's start only after
// ; & | ( ) { ! newline backquote, "then", "do", "else", "elif", "time"
// and a few prefix commands. The shells run the word as the program, and
// the request shows it as "my-secret=[redacted]", after:
//
//	if my-secret=bin/deployAll; then :; fi      (if, while, until)
//	timeout 5 my-secret=bin/deployAll           (a wrapper with an argument)
//	echo | xargs my-secret=bin/deployAll        (xargs)
//	>out my-secret=bin/deployAll                (a redirection first)
//	time -p my-secret=bin/deployAll             (bash: time's option)
//	exec -a n my-secret=bin/deployAll           (bash: exec's option)
//
// The file my-secret=bin/deployAll is one the agent wrote in the
// workspace (each case checked with bash, and dash where it has the
// syntax; skipped where missing).
//
// Controls: a valid assignment's secret stays hidden, in front of a
// command and after "if". The secure behaviour asserted: the request
// shows the program's path.
func TestAttack44ProgramWordAfterKeywords(t *testing.T) {
	const v = "Zq8vLw3nR2tK9pXs"
	for _, cmd := range []string{"MY_SECRET=" + v + " ./deploy.sh", "if API_TOKEN=" + v + " ./deploy.sh; then :; fi"} {
		if s := attack42ShownBash(t, cmd); strings.Contains(s, v) {
			t.Fatalf("control: the secret is shown:\n%s", s)
		}
	}
	const file = "my-secret=bin/deployAll"
	cases := []struct {
		cmd    string
		shells []string
	}{
		{"if " + file + "; then :; fi", []string{"bash", "dash"}},
		{"while " + file + "; do break; done", []string{"bash", "dash"}},
		{"until " + file + "; do break; done", []string{"bash", "dash"}},
		{"timeout 5 " + file, []string{"bash", "dash"}},
		{"echo | xargs " + file, []string{"bash", "dash"}},
		{">out " + file, []string{"bash", "dash"}},
		{"time -p " + file, []string{"bash"}},
		{"exec -a n " + file, []string{"bash"}},
	}
	for _, c := range cases {
		for _, shell := range c.shells {
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
			x := exec.Command(sh, "-c", c.cmd)
			x.Dir = dir
			_, _ = x.CombinedOutput()
			if _, err := os.Stat(mark); err != nil {
				t.Fatalf("premise: %s does not run %s in %q", shell, file, c.cmd)
			}
		}
		if s := attack42ShownBash(t, c.cmd); !strings.Contains(s, "bin/deployAll") {
			t.Errorf("%s\nruns ./%s, and the approval request hides it:\n%s", c.cmd, file, s)
		}
	}
}
