package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack42KeyArgvShellNotFound: argvKeysInData reads a shell's -c
// script in an exec_command argv as the command it is only when argv[0]
// names the shell and the script is the word after the first short option
// holding 'c'. A shell started through another program (env, timeout,
// nice, setsid: the script is then an argument, quoted in the view, so
// "data"), a "--" after -c (bash -c -- S and sh -c -- S run S), or a long
// option taking "-c" as its argument (bash --init-file -c -c S runs S)
// has the script read as data: a line after a key marker in it is hidden
// as key material, and the shell runs it. So
//
//	["env", "bash", "-c", "# -----BEGIN PRIVATE KEY-----\ntools/r4nD0m…"]
//
// is shown with the program hidden (checked: each argv is run in a
// directory holding the program; a missing program is skipped).
//
// Controls: ["bash", "-c", S] shows the program (the fix's case), and a
// real key in a quoted here-document stays hidden. The secure behaviour
// asserted: the approval request shows the program.
func TestAttack42KeyArgvShellNotFound(t *testing.T) {
	attack42KeyControls(t)
	script := "# -----BEGIN PRIVATE KEY-----\n" + attack42Prog + "\n"
	if s := shownExec(t, map[string]any{"argv": []string{"bash", "-c", script}}); !strings.Contains(s, attack42Prog) {
		t.Fatalf("control: bash -c hides the program:\n%s", s)
	}
	for _, argv := range [][]string{
		{"env", "bash", "-c", script},
		{"timeout", "60", "bash", "-c", script},
		{"nice", "sh", "-c", script},
		{"setsid", "-w", "bash", "-c", script},
		{"bash", "-c", "--", script},
		{"sh", "-c", "--", script},
		{"bash", "--init-file", "-c", "-c", script},
	} {
		if p, err := exec.LookPath(argv[0]); err == nil {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "tools"), 0o755); err != nil {
				t.Fatal(err)
			}
			mark := filepath.Join(dir, "AGENT-CODE-RAN")
			if err := os.WriteFile(filepath.Join(dir, attack42Prog), []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			c := exec.Command(p, argv[1:]...)
			c.Dir = dir
			_, _ = c.CombinedOutput()
			if _, err := os.Stat(mark); err != nil {
				t.Fatalf("premise: %q does not run the program", argv[:len(argv)-1])
			}
		}
		if s := shownExec(t, map[string]any{"argv": argv}); !strings.Contains(s, attack42Prog) {
			t.Errorf("%q runs %s, and the approval request hides it:\n%s", argv[:len(argv)-1], attack42Prog, s)
		}
	}
}
