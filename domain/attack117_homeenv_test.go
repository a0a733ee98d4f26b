package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack117_ExecEnvHomeStorePath: the inert check lets a hidden path
// through when it lies in the home's credential store ($HOME/.ssh/…),
// reasoning that no command may write there (sensitive paths are denied).
// But an exec_command's own environment may set HOME (env: {"HOME": the
// workspace}): $HOME/.ssh/x is then the workspace's ./.ssh/x, a directory
// the agent made, and choom (a wrapper on no list) runs it. The plain rule
// judges an assignment of HOME in the text (programChooser), not the
// exec's environment map. The request reads `choom -n 0 --
// $HOME/[redacted:…]`: which script runs is hidden.
// Control: the same command under the real home keeps the store's path
// hidden (honest); with HOME set, `choom -n 0 -- ./.ssh/…` is shown.
func TestAttack117_ExecEnvHomeStorePath(t *testing.T) {
	const name = ".ssh/r4nD0mLooK1nGNam3ForAScr1pt"
	cmd := "choom -n 0 -- $HOME/" + name
	const ws = "/w"
	if _, err := exec.LookPath("choom"); err != nil {
		t.Skip("no choom")
	}
	for _, shell := range []string{"dash", "bash"} {
		sh, err := exec.LookPath(shell)
		if err != nil {
			t.Skipf("no %s", shell)
		}
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, ".ssh"), 0o755); err != nil {
			t.Fatal(err)
		}
		mark := filepath.Join(dir, "AGENT-CODE-RAN")
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		c := exec.Command(sh, "-c", cmd)
		c.Dir, c.Env = dir, append(os.Environ(), "HOME="+dir)
		_, _ = c.CombinedOutput()
		if _, err := os.Stat(mark); err != nil {
			t.Fatalf("premise: %s does not run the workspace's %s with HOME set to it", shell, name)
		}
	}
	t.Run("control", func(t *testing.T) {
		if s := shownExec(t, map[string]any{"cmd": cmd}); strings.Contains(s, name) {
			t.Fatalf("control: the real home's store path is shown:\n%s", s)
		}
		c := "choom -n 0 -- ./" + name
		if s := shownExec(t, map[string]any{"cmd": c, "env": map[string]any{"HOME": ws}}); !strings.Contains(s, name) {
			t.Fatalf("control: %q hides its program:\n%s", c, s)
		}
	})
	if s := shownExec(t, map[string]any{"cmd": cmd, "env": map[string]any{"HOME": ws}}); !strings.Contains(s, name) {
		t.Errorf("%q with HOME=%s runs the workspace's %s, and the approval request hides it:\n%s", cmd, ws, name, s)
	}
}
