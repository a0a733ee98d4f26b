package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack44EnvCommandValueKey: the Environment detail shows the value
// of a variable that chooses what a program runs (envShowsValue:
// GIT_SSH_COMMAND, *_COMMAND, BASH_FUNC_*, PAGER …), redacted as a text
// of no known kind (envValueShown: RedactText), where a line after a key
// marker is hidden as key material wherever it is: the shell lexer's
// rule (keyMarkersInData) is not applied to a value a shell runs. So
//
//	{"cmd": "git ls-remote ssh://example.invalid/r",
//	 "env": {"GIT_SSH_COMMAND": "# -----BEGIN PRIVATE KEY-----\n<program>"}}
//	{"argv": ["bash", "-c", "ls"],
//	 "env": {"BASH_FUNC_ls%%": "() { # -----BEGIN PRIVATE KEY-----\n<program>\n}"}}
//
// are shown with GIT_SSH_COMMAND="# -----BEGIN PRIVATE KEY-----\n[redacted]"
// (and the function's body so), and git runs the value with sh -c (bash
// imports the function and runs it for ls): the comment is skipped and
// the program runs (checked by running each; skipped where git or bash is
// missing). programWord is not applied there either: GIT_SSH_COMMAND=
// "my-secret=tools/…" is shown as "my-secret=[redacted]", and sh runs
// the file my-secret=tools/… .
//
// Control: an env value that is a key (SSH_PRIVATE_KEY) is not shown.
// The secure behaviour asserted: the request shows the program.
func TestAttack44EnvCommandValueKey(t *testing.T) {
	key := "-----BEGIN PRIVATE KEY-----\n" + attack42L1 + "\n" + attack42L2 + "\n-----END PRIVATE KEY-----\n"
	if s := shownExec(t, map[string]any{"cmd": "echo \"$SSH_PRIVATE_KEY\" | ssh-add -", "env": map[string]any{"SSH_PRIVATE_KEY": key}}); strings.Contains(s, attack42L1) {
		t.Fatalf("control: a key is shown:\n%s", s)
	}
	cases := []struct {
		args map[string]any
		run  []string
		env  string
	}{
		{map[string]any{"cmd": "git ls-remote ssh://example.invalid/r", "env": map[string]any{"GIT_SSH_COMMAND": "my-secret=" + attack42Prog}},
			[]string{"git", "ls-remote", "ssh://example.invalid/r"}, "GIT_SSH_COMMAND=my-secret=" + attack42Prog},
		{map[string]any{"cmd": "git ls-remote ssh://example.invalid/r", "env": map[string]any{"GIT_SSH_COMMAND": "# -----BEGIN PRIVATE KEY-----\n" + attack42Prog}},
			[]string{"git", "ls-remote", "ssh://example.invalid/r"}, "GIT_SSH_COMMAND=# -----BEGIN PRIVATE KEY-----\n" + attack42Prog},
		{map[string]any{"argv": []string{"bash", "-c", "ls"}, "env": map[string]any{"BASH_FUNC_ls%%": "() { # -----BEGIN PRIVATE KEY-----\n" + attack42Prog + "\n}"}},
			[]string{"bash", "-c", "ls"}, "BASH_FUNC_ls%%=() { # -----BEGIN PRIVATE KEY-----\n" + attack42Prog + "\n}"},
	}
	for _, c := range cases {
		if bin, err := exec.LookPath(c.run[0]); err == nil {
			dir := t.TempDir()
			mark := filepath.Join(dir, "AGENT-CODE-RAN")
			for _, prog := range []string{attack42Prog, "my-secret=" + attack42Prog} {
				if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(prog)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, prog), []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			x := exec.Command(bin, c.run[1:]...)
			x.Dir = dir
			x.Env = append(os.Environ(), c.env)
			_, _ = x.CombinedOutput()
			if _, err := os.Stat(mark); err != nil {
				t.Fatalf("premise: %v does not run the program of %q", c.run, c.env)
			}
		}
		if s := shownExec(t, c.args); !strings.Contains(s, attack42Prog) {
			t.Errorf("%v runs %s from its env, and the approval request hides it:\n%s", c.run, attack42Prog, s)
		}
	}
}
