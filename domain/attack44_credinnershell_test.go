package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack44CredentialInNestedScript: credentialAt reads "Bearer $T"
// as a credential's place wherever it is in the text, and an exec_command
// env value expanded only there stays hidden (envDetail names it alone).
// In a script given to a nested shell in double quotes, the outer shell
// expands $T first and the inner shell then reads the value as code: a
// quote in it ends the header's string, and what follows runs. eval is
// counted (readsIndirectly), sh -c and bash -c are not. So
//
//	{"cmd": "sh -c \"curl -sS -H 'Authorization: Bearer $API_TOKEN' https://api.example/\"",
//	 "env": {"API_TOKEN": "x'; tools/steal; : '"}}
//
// is shown as a curl with a bearer token from API_TOKEN, and the inner
// shell runs tools/steal (checked with bash and dash as both shells,
// each skipped where missing).
//
// Controls: the honest value (a token) stays hidden, and the same call
// with eval shows the value (as the forty-second review made it). The
// secure behaviour asserted: the request shows the value.
func TestAttack44CredentialInNestedScript(t *testing.T) {
	const cred = "Zq8vLw3nR2tK9pXs"
	const inj = "x'; tools/steal; : '"
	cmd := `sh -c "curl -sS -H 'Authorization: Bearer $API_TOKEN' https://api.example/"`
	if s := shownExec(t, map[string]any{"cmd": cmd, "env": map[string]any{"API_TOKEN": cred}}); strings.Contains(s, cred) {
		t.Fatalf("control: a credential is shown:\n%s", s)
	}
	evalCmd := `eval "curl -sS -H 'Authorization: Bearer $API_TOKEN' https://api.example/"`
	if s := shownExec(t, map[string]any{"cmd": evalCmd, "env": map[string]any{"API_TOKEN": inj}}); !strings.Contains(s, "tools/steal") {
		t.Fatalf("control: eval's value is hidden:\n%s", s)
	}
	for _, shell := range []string{"bash", "dash"} {
		sh, err := exec.LookPath(shell)
		if err != nil {
			continue
		}
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "tools"), 0o755); err != nil {
			t.Fatal(err)
		}
		mark := filepath.Join(dir, "AGENT-CODE-RAN")
		if err := os.WriteFile(filepath.Join(dir, "tools", "steal"), []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		inner := strings.Replace(cmd, "sh -c", sh+" -c", 1)
		c := exec.Command(sh, "-c", strings.Replace(inner, "curl -sS", "true curl -sS", 1))
		c.Dir = dir
		c.Env = append(os.Environ(), "API_TOKEN="+inj)
		_, _ = c.CombinedOutput()
		if _, err := os.Stat(mark); err != nil {
			t.Fatalf("premise: %s does not run the program in the value", shell)
		}
	}
	for _, c := range []string{cmd, strings.Replace(cmd, "sh -c", "bash -c", 1)} {
		if s := shownExec(t, map[string]any{"cmd": c, "env": map[string]any{"API_TOKEN": inj}}); !strings.Contains(s, "tools/steal") {
			t.Errorf("%s\nruns tools/steal from API_TOKEN's value, and the approval request hides it:\n%s", c, s)
		}
	}
}
