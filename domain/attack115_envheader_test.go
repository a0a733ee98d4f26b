package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack115_EnvHeaderProgram: a hidden value may keep a '/' where the
// text before it reads as a header ("Authorization: ", urlOrHeaderBefore:
// a name after a blank or a quote, ':' and blanks), on the premise that a
// program run from such a word would need a directory named like the
// header. But the header's name may end an env assignment whose quotes
// glue it to the assignment (`env X=”Authorization: tools/x`): the shell
// hands env "X=Authorization:" (an assignment) and env runs the next
// word, tools/x, as the program. The redaction hides it (programWord does
// not take env for a command that runs the next word; pathWordNoAssignment
// exempts the name's word, an assignment), the plain rule sees env run
// tools/x (a program by a path, nothing written), and the inert check lets
// the '/' through as a header's credential. The approval request reads
// `env X=”Authorization: [redacted]`: the program that runs is hidden,
// whole, as a word of its own (no directory named like a header).
// Control: without the empty quotes (`env X=Authorization: tools/x`) the
// command is shown; an honest header's base64 credential with '/' and '+'
// stays hidden.
func TestAttack115_EnvHeaderProgram(t *testing.T) {
	cmds := []string{
		"env X=''Authorization: " + attack42Prog,
		`env X=""Cookie: ` + attack42Prog,
		"env -i X=''X-Api-Key: " + attack42Prog,
	}
	for _, cmd := range cmds {
		for _, sh := range []string{"dash", "bash"} {
			if ran, ok := attack42RunsProg(t, sh, cmd); !ok {
				t.Skipf("no %s", sh)
			} else if !ran {
				t.Fatalf("premise: %s does not run %s in %q", sh, attack42Prog, cmd)
			}
		}
	}
	t.Run("control", func(t *testing.T) {
		c := "env X=Authorization: " + attack42Prog
		if s := shownExec(t, map[string]any{"cmd": c}); !strings.Contains(s, attack42Prog) {
			t.Fatalf("control: %q hides its program:\n%s", c, s)
		}
		const cred = "dXNlcjpwYXNz/d29yZA+ZXhhbXBsZQ=="
		h := `curl -H "Authorization: Bearer ` + cred + `" https://api.example.com/v1/x`
		for _, s := range []string{shownExec(t, map[string]any{"cmd": h}), attack42ShownBash(t, h)} {
			if strings.Contains(s, cred) {
				t.Fatalf("control: an honest header's credential is shown:\n%s", s)
			}
		}
	})
	for _, cmd := range cmds {
		for _, s := range []string{shownExec(t, map[string]any{"cmd": cmd}), attack42ShownBash(t, cmd)} {
			if !strings.Contains(s, attack42Prog) {
				t.Errorf("%q\nruns %s (env's program), and the approval request hides it:\n%s", cmd, attack42Prog, s)
			}
		}
	}
}

// TestAttack115_EnvHeaderProgramEnvValue: the same through an exec's
// environment. A GIT_SSH_COMMAND is shown by name and its value redacted
// as a shell command (envValueShown, with the inert check): git runs it
// through a shell for an ssh remote, and `env X=”Authorization: tools/x`
// there runs tools/x. The request shows GIT_SSH_COMMAND="env
// X=”Authorization: [redacted]".
// Control: GIT_SSH_COMMAND="env X=Authorization: tools/x" is shown whole.
func TestAttack115_EnvHeaderProgramEnvValue(t *testing.T) {
	argv := []string{"git", "ls-remote", "ssh://h.invalid/x"}
	val := "env X=''Authorization: " + attack42Prog
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	mark := filepath.Join(dir, "AGENT-CODE-RAN")
	if err := os.WriteFile(filepath.Join(dir, attack42Prog), []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(argv[0], argv[1:]...)
	c.Dir, c.Env = dir, append(os.Environ(), "GIT_SSH_COMMAND="+val)
	_, _ = c.CombinedOutput()
	if _, err := os.Stat(mark); err != nil {
		t.Fatalf("premise: git does not run %s through GIT_SSH_COMMAND=%q", attack42Prog, val)
	}
	t.Run("control", func(t *testing.T) {
		env := map[string]any{"GIT_SSH_COMMAND": "env X=Authorization: " + attack42Prog}
		if s := shownExec(t, map[string]any{"argv": argv, "env": env}); !strings.Contains(s, attack42Prog) {
			t.Fatalf("control: the value is hidden:\n%s", s)
		}
	})
	if s := shownExec(t, map[string]any{"argv": argv, "env": map[string]any{"GIT_SSH_COMMAND": val}}); !strings.Contains(s, attack42Prog) {
		t.Errorf("git runs %s from GIT_SSH_COMMAND=%q, and the request hides it:\n%s", attack42Prog, val, s)
	}
}
