package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack110_PromptString: an interactive shell expands its prompt
// strings (PS1, and bash's PS0 and PS2) before each command it reads,
// command substitutions included, bash's and dash's alike. PS1 and PS0
// are not among the variables that choose what runs (programChooser has
// PS4 and PROMPT_COMMAND), and a single-quoted `$(…)` is a literal to the
// parser: an assignment `PS1='$(echo password=tools/x | cut -d= -f2 |
// sh)'` is plain, and its password hidden. Run by an interactive shell
// (`PS1='…' sh -i < /dev/null`, exec_command; or typed into a terminal
// session's shell with write_stdin, which then prints its prompt), the
// substitution runs the hidden value.
// Controls: the same with PROMPT_COMMAND is shown whole; an honest `PS1='$
// ' make deploy password=P` keeps P hidden.
func TestAttack110_PromptString(t *testing.T) {
	code := "'$(echo password=" + attack42Prog + " | cut -d= -f2 | sh)'"
	if s := shownExec(t, map[string]any{"cmd": "PROMPT_COMMAND=" + code + " sh -i < /dev/null"}); !strings.Contains(s, attack42Prog) {
		t.Fatalf("control: PROMPT_COMMAND is not shown whole:\n%s", s)
	}
	if s := shownExec(t, map[string]any{"cmd": attack42Honest("PS1='$ ' make deploy password=" + attack42Prog)}); strings.Contains(s, attack42Inert) {
		t.Fatalf("control: an honest prompt shows the password:\n%s", s)
	}
	attack42CheckKeyCases(t, []attack42KeyCase{
		{name: "PS1=… sh -i", cmd: "PS1=" + code + " sh -i < /dev/null", runs: []string{"bash", "dash"}},
		{name: "PS1=… bash --norc -i, Claude Code Bash", cmd: "PS1=" + code + " bash --norc -i < /dev/null", runs: []string{"bash"}, bash: true},
	})
	// Typed into an interactive session's shell.
	for _, typed := range []string{"PS1=" + code + "\n", "PS0=" + code + "\n"} {
		for _, shell := range []string{"bash", "dash"} {
			if shell == "dash" && strings.HasPrefix(typed, "PS0") {
				continue // bash's own
			}
			sh, err := exec.LookPath(shell)
			if err != nil {
				continue
			}
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "tools"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, attack42Prog), []byte("#!/bin/sh\ntouch AGENT-CODE-RAN\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			args := []string{"-i"}
			if shell == "bash" {
				args = []string{"--norc", "-i"}
			}
			c := exec.Command(sh, args...)
			c.Dir, c.Stdin = dir, strings.NewReader(typed+"true\n")
			_, _ = c.CombinedOutput()
			if _, err := os.Stat(filepath.Join(dir, "AGENT-CODE-RAN")); err != nil {
				t.Fatalf("premise: an interactive %s reading %q does not run the program", shell, typed)
			}
		}
		if s := attack108ShownStdin(t, typed); !strings.Contains(s, attack42Prog) {
			t.Errorf("typed %q: the session's shell runs %s at its next prompt, and the request hides it:\n%s", typed, attack42Prog, s)
		}
	}
}
