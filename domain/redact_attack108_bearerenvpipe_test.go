package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack108_BearerEnvPipeDomain: the domain half of
// tests.TestAttack108_BearerEnvPipe, with a secret-named variable. An
// exec's env API_TOKEN=tools/x and the command `echo "Bearer $API_TOKEN"
// | cut -d' ' -f2 | sh`: the pipeline's text hides nothing but an
// expansion where a credential goes, so computesProgram skips it (never
// asking feedsCode) and expandsSet and exposedVars pass it (credentialAt):
// the request shows "Environment: API_TOKEN", and sh runs the value.
// Control: `echo "$API_TOKEN" | sh` shows the value.
func TestAttack108_BearerEnvPipeDomain(t *testing.T) {
	env := map[string]any{"API_TOKEN": attack42Prog}
	for _, c := range []struct {
		cmd     string
		control bool
	}{
		{`echo "$API_TOKEN" | sh`, true},
		{`echo "Bearer $API_TOKEN" | cut -d' ' -f2 | sh`, false},
		{`echo Bearer $API_TOKEN | cut -d' ' -f2 | sh`, false},
	} {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "tools"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, attack42Prog), []byte("#!/bin/sh\ntouch AGENT-CODE-RAN\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, shell := range []string{"bash", "dash"} {
			sh, err := exec.LookPath(shell)
			if err != nil {
				continue
			}
			_ = os.Remove(filepath.Join(dir, "AGENT-CODE-RAN"))
			cmd := exec.Command(sh, "-c", c.cmd)
			cmd.Dir, cmd.Env = dir, []string{"PATH=/usr/bin:/bin", "API_TOKEN=" + attack42Prog}
			_, _ = cmd.CombinedOutput()
			if _, err := os.Stat(filepath.Join(dir, "AGENT-CODE-RAN")); err != nil {
				t.Fatalf("premise: %s does not run the value of API_TOKEN with %q", shell, c.cmd)
			}
		}
		s := shownExec(t, map[string]any{"cmd": c.cmd, "env": env})
		switch {
		case c.control && !strings.Contains(s, attack42Prog):
			t.Fatalf("control: %q does not show the value:\n%s", c.cmd, s)
		case !strings.Contains(s, attack42Prog):
			t.Errorf("%q runs the hidden value of API_TOKEN, and the approval request hides it:\n%s", c.cmd, s)
		}
	}
}
