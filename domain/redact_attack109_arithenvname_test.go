package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack109_ArithEnvName (bash): bash's arithmetic reads a variable's
// value as an expression again, by its bare name ([[ NAME -eq 1 ]],
// declare -i n=NAME), and an expression's subscript runs a substitution:
// an exec's env API_TOKEN="a[$(tools/x)]" is run by `[[ API_TOKEN -eq 1
// ]]`. The rule shows the value when the name is written again (control),
// but it looks for the name in the raw text: written with quotes
// (API_TOK”EN, 'API_TOK'EN, API_TOK\EN), which bash removes before
// arithmetic reads the name, it is not seen. The command is plain, the
// value is hidden ("Environment: API_TOKEN"), and bash runs tools/x.
// Controls: `[[ API_TOKEN -eq 1 ]]` shows the value; `npm publish`
// (the value passed, not expanded) keeps it
// hidden.
func TestAttack109_ArithEnvName(t *testing.T) {
	val := "a[$(" + attack42Prog + ")]"
	env := map[string]any{"API_TOKEN": val}
	shown := func(script string) string {
		return shownExec(t, map[string]any{"cmd": []string{"bash", "-lc", script}, "env": env})
	}
	if s := shown("[[ API_TOKEN -eq 1 ]] || true"); !strings.Contains(s, attack42Prog) {
		t.Fatalf("control: the name written plainly does not show the value:\n%s", s)
	}
	if s := shown("npm publish"); strings.Contains(s, attack42Prog) {
		t.Fatalf("control: an honest use shows the value:\n%s", s)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for _, script := range []string{"[[ API_TOK''EN -eq 1 ]] || true", "[[ 'API_TOK'EN -eq 1 ]] || true", `[[ API_TOK\EN -eq 1 ]] || true`, "declare -i n='API_TOK'EN"} {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "tools"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, attack42Prog), []byte("#!/bin/sh\ntouch AGENT-CODE-RAN\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		c := exec.Command(bash, "-c", script)
		c.Dir, c.Env = dir, []string{"PATH=/usr/bin:/bin", "API_TOKEN=" + val}
		_, _ = c.CombinedOutput()
		if _, err := os.Stat(filepath.Join(dir, "AGENT-CODE-RAN")); err != nil {
			t.Fatalf("premise: bash does not run the value of API_TOKEN with %q", script)
		}
		if s := shown(script); !strings.Contains(s, attack42Prog) {
			t.Errorf("%q runs the hidden value of API_TOKEN, and the approval request hides it:\n%s", script, s)
		}
	}
}
