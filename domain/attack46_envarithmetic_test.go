package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack46EnvArithmeticName: bash reads a variable by its bare name
// in arithmetic ($((N)), [[ N -eq 0 ]], let, an array's subscript) and
// evaluates its value as an expression, whose array subscript runs a
// command substitution. exposedVars sees only $NAME and ${NAME}, and
// namedAgain only names the text assigns, so a value from exec_command's
// env read that way stays hidden in the Environment detail:
//
//	exec_command {"cmd": "bash -c 'echo $((API_TOKEN))'",
//	              "env": {"API_TOKEN": "a[$(tools/x)]"}}
//
// shows "Environment: API_TOKEN" while bash runs tools/x (checked with
// /bin/sh being bash and dash, each running bash -c).
//
// Control: the same variable used as a bearer credential stays hidden.
func TestAttack46EnvArithmeticName(t *testing.T) {
	const v = "Zq8vLw3nR2tK9pXs"
	if s := shownExec(t, map[string]any{"cmd": `curl -sS -H "Authorization: Bearer $API_TOKEN" https://api.example/`, "env": map[string]any{"API_TOKEN": v}}); strings.Contains(s, v) {
		t.Fatalf("control: a bearer credential is shown:\n%s", s)
	}
	val := "a[$(" + attack42Prog + ")]"
	for _, cmd := range []string{
		`bash -c 'echo $((API_TOKEN))'`,
		`bash -c '[[ API_TOKEN -eq 0 ]]'`,
		`bash -c 'let x=API_TOKEN'`,
		`bash -c 'a=(1); echo ${a[API_TOKEN]}'`,
	} {
		if _, err := exec.LookPath("bash"); err == nil {
			for _, name := range []string{"bash", "dash"} {
				sh, err := exec.LookPath(name)
				if err != nil {
					continue
				}
				dir := t.TempDir()
				if err := os.MkdirAll(filepath.Join(dir, "tools"), 0o755); err != nil {
					t.Fatal(err)
				}
				mark := filepath.Join(dir, "AGENT-CODE-RAN")
				if err := os.WriteFile(filepath.Join(dir, attack42Prog), []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o755); err != nil {
					t.Fatal(err)
				}
				c := exec.Command(sh, "-c", cmd)
				c.Dir = dir
				c.Env = append(os.Environ(), "API_TOKEN="+val)
				_, _ = c.CombinedOutput()
				if _, err := os.Stat(mark); err != nil {
					t.Fatalf("premise: %s does not run the program of %q", name, cmd)
				}
			}
		}
		if s := shownExec(t, map[string]any{"cmd": cmd, "env": map[string]any{"API_TOKEN": val}}); !strings.Contains(s, attack42Prog) {
			t.Errorf("%s\nbash runs the program in API_TOKEN's value, and the approval request hides it:\n%s", cmd, s)
		}
	}
}
