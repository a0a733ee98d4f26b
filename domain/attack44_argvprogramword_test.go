package domain

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack44ArgvScriptProgramWord: programWord keeps in view a secret
// assignment's shape that is the word a shell runs (my-secret=bin/x:
// a hyphen makes it no assignment), but only in a text read as a shell
// command. An exec_command given an argv shows its summary and Command
// detail as the joined argv read as one command, whose program is the
// shell; the script's first word is an argument there and is hidden.
// redactArgv reads an argument as a script only when it is the last and
// follows "-c" exactly. So each of
//
//	["bash", "-c", "my-secret=bin/deployAll"]
//	["bash", "-lc", "my-secret=bin/deployAll"]        (Codex's shell form)
//	["bash", "-c", "my-secret=bin/deployAll", "x"]    ($0 after the script)
//	["bash", "-c", "--", "my-secret=bin/deployAll"]
//
// is shown as "Run bash -c my-secret=[redacted]" (summary and Command
// detail), and bash runs the file my-secret=bin/deployAll, which the
// agent wrote (checked with bash; skipped where missing).
//
// Control: a real secret assignment in such a script stays hidden. The
// secure behaviour asserted: the summary and every detail show the
// program's path.
func TestAttack44ArgvScriptProgramWord(t *testing.T) {
	view := func(argv []string) string {
		raw, _ := json.Marshal(map[string]any{"argv": argv})
		a, err := Classify(Invocation{ToolName: "exec_command", Arguments: raw}, "/w", nil)
		if err != nil {
			t.Fatal(err)
		}
		r := a.Redacted()
		var b strings.Builder
		b.WriteString(r.Summary)
		for _, d := range r.Details {
			b.WriteString("\n" + d.Label + ": " + d.Value)
		}
		return b.String()
	}
	const v = "Zq8vLw3nR2tK9pXs"
	if s := view([]string{"bash", "-lc", "MY_SECRET=" + v + " ./deploy.sh"}); strings.Contains(s, v) {
		t.Fatalf("control: the secret is shown:\n%s", s)
	}
	const file = "my-secret=bin/deployAll"
	for _, argv := range [][]string{
		{"bash", "-c", file},
		{"bash", "-lc", file},
		{"bash", "-c", file, "x"},
		{"bash", "-c", "--", file},
	} {
		if bash, err := exec.LookPath("bash"); err == nil {
			dir := t.TempDir()
			mark := filepath.Join(dir, "AGENT-CODE-RAN")
			if err := os.MkdirAll(filepath.Join(dir, "my-secret=bin"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, file), []byte("#!/bin/sh -\ntouch "+mark+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			c := exec.Command(bash, argv[1:]...)
			c.Dir = dir
			_, _ = c.CombinedOutput()
			if _, err := os.Stat(mark); err != nil {
				t.Fatalf("premise: bash does not run %s for %q", file, argv)
			}
		}
		s := view(argv)
		for _, line := range strings.Split(s, "\n") {
			if strings.Contains(line, "my-secret=") && !strings.Contains(line, "bin/deployAll") {
				t.Errorf("%q runs ./%s, and the approval request hides it:\n%s", argv, file, s)
				break
			}
		}
	}
}
