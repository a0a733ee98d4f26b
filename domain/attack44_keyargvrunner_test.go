package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack44KeyArgvShellRunner: argvKeysInData reads an argv's
// arguments as scripts only after an argument that names a shell (sh,
// bash, busybox …). Common programs run an argument with /bin/sh -c (or
// $SHELL -c) themselves, and their argv names no shell:
//
//	["flock", "lk", "-c", S]                 flock's -c: sh -c S
//	["script", "-qc", S, "/dev/null"]        script's -c: $SHELL -c S
//	["git", "-c", "alias.x=!" + S, "x"]      a "!" alias: sh -c S
//	["env", "-S", "sh -c '" + S + "'"]       env splits the string itself
//
// With S = "# -----BEGIN PRIVATE KEY-----\n" + a program, each argument
// is read as a text of no known kind, the program's line is hidden as a
// key's, and the runner's shell reads the marker as a comment and runs
// the program (each checked by running the argv, skipped where the
// program is missing).
//
// Control: a key given as an argument (ssh-add -) stays hidden. The
// secure behaviour asserted: the approval request shows the program.
func TestAttack44KeyArgvShellRunner(t *testing.T) {
	key := "-----BEGIN PRIVATE KEY-----\n" + attack42L1 + "\n" + attack42L2 + "\n-----END PRIVATE KEY-----"
	if s := keyReaderShown(t, key); strings.Contains(s, attack42L1) || strings.Contains(s, attack42L2) { // a command shows its keys since this review
		t.Fatalf("control: a key's line is shown:\n%s", s)
	}
	script := "# -----BEGIN PRIVATE KEY-----\n" + attack42Prog + "\n"
	for _, argv := range [][]string{
		{"flock", "lk", "-c", script},
		{"script", "-qc", script, "/dev/null"},
		{"git", "-c", "alias.x=!" + script, "x"},
		{"env", "-S", "sh -c '" + script + "'"},
	} {
		if bin, err := exec.LookPath(argv[0]); err == nil {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "tools"), 0o755); err != nil {
				t.Fatal(err)
			}
			mark := filepath.Join(dir, "AGENT-CODE-RAN")
			if err := os.WriteFile(filepath.Join(dir, attack42Prog), []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			c := exec.Command(bin, argv[1:]...)
			c.Dir = dir
			c.Env = append(os.Environ(), "SHELL=/bin/sh")
			out, _ := c.CombinedOutput()
			if _, err := os.Stat(mark); err != nil {
				t.Fatalf("premise: %v does not run the program: %s", argv[:2], out)
			}
		}
		if s := shownExec(t, map[string]any{"argv": argv}); !strings.Contains(s, attack42Prog) {
			t.Errorf("%v runs %s, and the approval request hides it:\n%s", argv[:2], attack42Prog, s)
		}
	}
}
