package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack46EnvVarsThatRunPrograms: the Environment detail shows a
// value only for the variables envShowsValue lists as choosing what runs
// (or one the command expands, exposedVars). Programs read others that
// run commands:
//
//	ZIPOPT="-T -TT tools/x"   zip takes them as options: -TT runs tools/x
//	MAKEFILES=evil.mk         make reads evil.mk first ($(shell tools/x))
//
// exec_command {"cmd": "zip -q out.zip f", "env": {"ZIPOPT": …}} shows
// "Environment: ZIPOPT" and nothing of what zip runs (checked with bash
// and dash as /bin/sh, where zip and make are installed).
//
// Control: a secret-named variable's value stays hidden.
func TestAttack46EnvVarsThatRunPrograms(t *testing.T) {
	const v = "Zq8vLw3nR2tK9pXs"
	if s := shownExec(t, map[string]any{"cmd": "zip -q out.zip f", "env": map[string]any{"API_TOKEN": v}}); strings.Contains(s, v) {
		t.Fatalf("control: a secret is shown:\n%s", s)
	}
	for _, c := range []struct {
		prog, cmd, name, value, shows string
		files                         map[string]string
	}{
		{"zip", "zip -q out.zip f", "ZIPOPT", "-T -TT " + attack42Prog, attack42Prog, map[string]string{"f": "hi\n"}},
		{"make", "make -s", "MAKEFILES", "evil.mk", "evil.mk", map[string]string{"evil.mk": "x := $(shell " + attack42Prog + ")\n", "Makefile": "all:\n\t@true\n"}},
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
				for f, body := range c.files {
					if err := os.WriteFile(filepath.Join(dir, f), []byte(body), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				x := exec.Command(sh, "-c", c.cmd)
				x.Dir = dir
				x.Env = append(os.Environ(), c.name+"="+c.value)
				_, _ = x.CombinedOutput()
				if _, err := os.Stat(mark); err != nil {
					t.Fatalf("premise: %s with %s=%q does not run the program of %q", name, c.name, c.value, c.cmd)
				}
			}
		}
		if s := shownExec(t, map[string]any{"cmd": c.cmd, "env": map[string]any{c.name: c.value}}); !strings.Contains(s, c.shows) {
			t.Errorf("%s=%q makes %q run a program, and the approval request hides the value:\n%s", c.name, c.value, c.cmd, s)
		}
	}
}
