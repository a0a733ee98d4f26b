package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack46EnvValueInAnotherShellsScript: a credential's place in a
// script a nested shell parses again shows a value with the shell's
// syntax only when nestedShell sees "sh -c" (or bash, dash…). Other
// programs hand a double-quoted script, the value expanded into it, to
// sh -c: script -c, flock -c, perl's and Python's system(). An exec env's
// value is hidden whole in the Environment detail, syntax and all:
//
//	exec_command {"cmd": "script -qc \"true --token $API_TOKEN\" /dev/null",
//	              "env": {"API_TOKEN": "x; tools/x"}}
//
// shows "Environment: API_TOKEN" while the nested sh runs tools/x
// (checked with bash and dash).
//
// Control: the same place in a command no shell parses again keeps the
// value hidden.
func TestAttack46EnvValueInAnotherShellsScript(t *testing.T) {
	const v = "Zq8vLw3nR2tK9pXs"
	if s := shownExec(t, map[string]any{"cmd": `some-cli deploy --token "$API_TOKEN"`, "env": map[string]any{"API_TOKEN": v}}); strings.Contains(s, v) {
		t.Fatalf("control: a credential is shown:\n%s", s)
	}
	val := "x; " + attack42Prog
	for _, c := range []struct{ prog, cmd string }{
		{"script", `script -qc "true --token $API_TOKEN" /dev/null`},
		{"flock", `flock l -c "true --token $API_TOKEN"`},
		{"perl", `perl -e "system(q(true --token $API_TOKEN))"`},
		{"python3", `python3 -c "import os; os.system(\"true --token $API_TOKEN\")"`},
	} {
		if _, err := exec.LookPath(c.prog); err == nil {
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
				x := exec.Command(sh, "-c", c.cmd)
				x.Dir = dir
				x.Env = append(os.Environ(), "API_TOKEN="+val)
				_, _ = x.CombinedOutput()
				if _, err := os.Stat(mark); err != nil {
					t.Fatalf("premise: %s does not run the program of %q", name, c.cmd)
				}
			}
		}
		if s := shownExec(t, map[string]any{"cmd": c.cmd, "env": map[string]any{"API_TOKEN": val}}); !strings.Contains(s, attack42Prog) {
			t.Errorf("%s\nruns the program in API_TOKEN's value, and the approval request hides it:\n%s", c.cmd, s)
		}
	}
}
