package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack42SecretAssignmentIsTheProgram: the assign pattern hides the
// value of any NAME=value whose NAME holds a secret word, and a shell
// reads such a word as an assignment only when NAME is a valid name,
// unquoted, before the command's name. Otherwise the whole word is the
// command's name, and with a '/' in it, a file the shell runs:
//
//	go build && my-secret=bin/deployAll --prod   (a '-' in the name)
//	API_''TOKEN=tools/run                        (a quote in the name)
//	command API_TOKEN=tools/run                  (after a command name)
//	make && --api-key=bin/run                    (an option's shape)
//	make && X-Token:bin/run                      (a header's shape)
//
// are shown to the person approving with the part after '=' or ':'
// "[redacted]" ("my-secret=[redacted] --prod"): what looks like a hidden
// credential, while bash and dash run the file my-secret=bin/deployAll
// (API_TOKEN=tools/run, …), which the agent wrote in the workspace
// (checked with bash and dash, each skipped where missing).
//
// Controls: a valid assignment's secret stays hidden, in front of a
// command and on its own. The secure behaviour asserted: the request shows
// the program's path.
func TestAttack42SecretAssignmentIsTheProgram(t *testing.T) {
	const v = "Zq8vLw3nR2tK9pXs"
	for _, cmd := range []string{"MY_SECRET=" + v + " ./deploy.sh", "export API_TOKEN=" + v + "; ./deploy.sh"} {
		if s := attack42ShownBash(t, cmd); strings.Contains(s, v) {
			t.Fatalf("control: the secret is shown:\n%s", s)
		}
	}
	cases := []struct{ cmd, file string }{
		{"go build && my-secret=bin/deployAll --prod", "my-secret=bin/deployAll"},
		{"API_''TOKEN=tools/run", "API_TOKEN=tools/run"},
		{"command API_TOKEN=tools/run", "API_TOKEN=tools/run"},
		{"make && --api-key=bin/run", "--api-key=bin/run"},
		{"make && X-Token:bin/run", "X-Token:bin/run"},
	}
	for _, shell := range []string{"bash", "dash"} {
		sh, err := exec.LookPath(shell)
		if err != nil {
			continue
		}
		for _, c := range cases {
			dir := t.TempDir()
			mark := filepath.Join(dir, "AGENT-CODE-RAN")
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(c.file)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, c.file), []byte("#!/bin/sh -\ntouch "+mark+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := strings.NewReplacer("go build && ", "true && ", "make && ", "true && ").Replace(c.cmd)
			x := exec.Command(sh, "-c", cmd)
			x.Dir = dir
			_, _ = x.CombinedOutput()
			if _, err := os.Stat(mark); err != nil {
				t.Fatalf("premise: %s does not run %s in %q", shell, c.file, cmd)
			}
		}
	}
	for _, c := range cases {
		prog := c.file[strings.IndexAny(c.file, "=:")+1:]
		if s := attack42ShownBash(t, c.cmd); !strings.Contains(s, prog) {
			t.Errorf("%s\nruns ./%s, and the approval request hides it:\n%s", c.cmd, c.file, s)
		}
		if s := shownExec(t, map[string]any{"cmd": c.cmd}); !strings.Contains(s, prog) {
			t.Errorf("exec_command %s\nruns ./%s, and the approval request hides it:\n%s", c.cmd, c.file, s)
		}
	}
}
