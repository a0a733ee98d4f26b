package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack46EnvironReadWithoutDollar: execBindings reads the command
// for the variables it exposes (exposedVars) only when it holds a '$', the
// lower-case word "env" or "set"; readsIndirectly knows awk's ENVIRON[,
// but a command that reads its environment by name with none of those
// three is never scanned:
//
//	exec_command {"cmd": "awk 'BEGIN{system(ENVIRON[\"API_TOKEN\"])}'",
//	              "env": {"API_TOKEN": "tools/x"}}
//
// The Environment detail shows "API_TOKEN" alone: the program awk's
// system() runs is hidden. (ruby -e 'system ENV["API_TOKEN"]' passes the
// same gate, and ENV[ is in no list.) The premise runs it with bash and
// dash.
//
// Control: the same variable used as a bearer credential stays hidden.
func TestAttack46EnvironReadWithoutDollar(t *testing.T) {
	const v = "Zq8vLw3nR2tK9pXs"
	if s := shownExec(t, map[string]any{"cmd": `curl -sS -H "Authorization: Bearer $API_TOKEN" https://api.example/`, "env": map[string]any{"API_TOKEN": v}}); strings.Contains(s, v) {
		t.Fatalf("control: a bearer credential is shown:\n%s", s)
	}
	const cmd = `awk 'BEGIN{system(ENVIRON["API_TOKEN"])}'`
	if _, err := exec.LookPath("awk"); err == nil {
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
			c.Env = append(os.Environ(), "API_TOKEN="+attack42Prog)
			_, _ = c.CombinedOutput()
			if _, err := os.Stat(mark); err != nil {
				t.Fatalf("premise: %s does not run the program of %q", name, cmd)
			}
		}
	}
	if s := shownExec(t, map[string]any{"cmd": cmd, "env": map[string]any{"API_TOKEN": attack42Prog}}); !strings.Contains(s, attack42Prog) {
		t.Errorf("awk runs the value of API_TOKEN, and the approval request hides it:\n%s", s)
	}
}
