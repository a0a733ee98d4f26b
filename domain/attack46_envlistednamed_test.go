package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack46EnvValueFoundByItsName: namedAgain shows every value when a
// secret-named variable the text assigns is named again other than as an
// expansion, but a variable from exec_command's env is assigned by no
// text: a command that lists the environment and picks the value out by
// its name (env, printenv with no argument: readsIndirectly leaves a bare
// listing alone, as output) hands it to sh:
//
//	exec_command {"cmd": "env | sed -n 's/^API_TOKEN=//p' | sh",
//	              "env": {"API_TOKEN": "tools/x"}}
//
// shows "Environment: API_TOKEN" while sh runs tools/x (checked with
// bash and dash).
//
// Control: a bare env, whose listing is only output, keeps the value
// hidden.
func TestAttack46EnvValueFoundByItsName(t *testing.T) {
	const v = "Zq8vLw3nR2tK9pXs"
	if s := shownExec(t, map[string]any{"cmd": "env | sort", "env": map[string]any{"API_TOKEN": v}}); strings.Contains(s, v) {
		t.Fatalf("control: a listed secret is shown:\n%s", s)
	}
	for _, cmd := range []string{
		`env | sed -n 's/^API_TOKEN=//p' | sh`,
		`printenv | grep ^API_TOKEN= | cut -d= -f2 | sh`,
	} {
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
			x := exec.Command(sh, "-c", cmd)
			x.Dir = dir
			x.Env = append(os.Environ(), "API_TOKEN="+attack42Prog)
			_, _ = x.CombinedOutput()
			if _, err := os.Stat(mark); err != nil {
				t.Fatalf("premise: %s does not run the program of %q", name, cmd)
			}
		}
		if s := shownExec(t, map[string]any{"cmd": cmd, "env": map[string]any{"API_TOKEN": attack42Prog}}); !strings.Contains(s, attack42Prog) {
			t.Errorf("%s\nruns API_TOKEN's value, and the approval request hides it:\n%s", cmd, s)
		}
	}
}
