package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// attack115Runs runs cmd with shell in a directory holding a script at
// the relative path file (its directories made) and reports whether the
// script ran; ok is false when there is no such shell.
func attack115Runs(t *testing.T, shell, cmd, file string) (ran, ok bool) {
	t.Helper()
	sh, err := exec.LookPath(shell)
	if err != nil {
		return false, false
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(file)), 0o755); err != nil {
		t.Fatal(err)
	}
	mark := filepath.Join(dir, "AGENT-CODE-RAN")
	if err := os.WriteFile(filepath.Join(dir, file), []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(sh, "-c", cmd)
	c.Dir = dir
	c.Stdin = strings.NewReader("")
	_, _ = c.CombinedOutput()
	_, err = os.Stat(mark)
	return err == nil, true
}
