package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack108_QuotedReader: the plain-command rule (computesProgram)
// finds a code reader fed by a pipe by its word (feedsCode, shellWords):
// a word whose quotes or escapes are only trimmed at its ends, and which
// is no glob. The shell removes quotes and escapes inside a word and
// expands a glob: "s\h", "'s'h", sh with empty quotes inside, "/bin/das?" run sh and dash.
// The command is called plain, the value cut out of "password=…" stays
// hidden, and the shell runs it (the README's own example, `echo
// password=tools/x | cut -d= -f2 | sh`, with its reader's name quoted).
// Control: the same command with a bare "sh" is shown whole (checked by
// the helper's premise and below), and an honest plain command still
// hides its password.
func TestAttack108_QuotedReader(t *testing.T) {
	cut := "echo password=" + attack42Prog + " | cut -d= -f2 | "
	// Control: the reader named bare is shown whole, and a plain
	// command hides its credential.
	if s := shownExec(t, map[string]any{"cmd": cut + "sh"}); !strings.Contains(s, attack42Prog) {
		t.Fatalf("control: the bare reader's command is not shown whole:\n%s", s)
	}
	if s := shownExec(t, map[string]any{"cmd": attack42Honest("curl -H 'Authorization: Bearer " + attack42Prog + "' https://api.example.com/")}); strings.Contains(s, attack42Inert) {
		t.Fatalf("control: an honest plain command shows its credential:\n%s", s)
	}
	attack42CheckKeyCases(t, []attack42KeyCase{
		{name: "escaped", cmd: cut + `s\h`, runs: []string{"bash", "dash"}},
		{name: "escaped, Claude Code Bash", cmd: cut + `s\h`, runs: []string{"bash"}, bash: true},
		{name: "quoted part", cmd: cut + `'s'h`, runs: []string{"bash", "dash"}},
		{name: "empty quotes inside", cmd: cut + `s''h`, runs: []string{"bash", "dash"}},
		{name: "double-quoted part", cmd: cut + `"s"h`, runs: []string{"bash", "dash"}},
		{name: "glob", cmd: cut + `/bin/das?`, runs: []string{"bash", "dash"}},
	})
}

// TestAttack108_QuotedReaderEnv: the same quoted reader past the
// environment's check (exposedVars: a listing of the environment piped
// into a reader, pipeToReader, which allows only a leading '\'): an
// exec's secret-named value (API_TOKEN) that the command lists, cuts and
// pipes into "s\h" stays hidden, and the shell runs it. Control: with a
// bare "sh" the value is shown.
func TestAttack108_QuotedReaderEnv(t *testing.T) {
	env := map[string]any{"API_TOKEN": attack42Prog}
	for _, c := range []struct {
		cmd       string
		wantShown bool
	}{
		{"env | grep ^API_ | cut -d= -f2 | sh", true}, // control
		{`env | grep ^API_ | cut -d= -f2 | s\h`, true},
		{`env | grep ^API_ | cut -d= -f2 | 's'h`, true},
	} {
		// Premise: dash runs the value.
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "tools"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, attack42Prog), []byte("#!/bin/sh\ntouch AGENT-CODE-RAN\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if sh, err := exec.LookPath("dash"); err == nil {
			cmd := exec.Command(sh, "-c", c.cmd)
			cmd.Dir, cmd.Env = dir, []string{"PATH=/usr/bin:/bin", "API_TOKEN=" + attack42Prog}
			_, _ = cmd.CombinedOutput()
			if _, err := os.Stat(filepath.Join(dir, "AGENT-CODE-RAN")); err != nil {
				t.Fatalf("premise: dash does not run the value of API_TOKEN with %q", c.cmd)
			}
		}
		s := shownExec(t, map[string]any{"cmd": c.cmd, "env": env})
		if c.wantShown && !strings.Contains(s, attack42Prog) {
			t.Errorf("%q runs the hidden value of API_TOKEN, and the approval request hides it:\n%s", c.cmd, s)
		}
	}
}
