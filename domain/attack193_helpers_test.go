package domain

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Helpers of the hundred-and-ninety-third review's tests.

// attack193Shown is what exec_command's approval request shows of cmd
// (summary and details) and what its record keeps (RedactedRecord: the
// summary and the scope's command).
func attack193Shown(t *testing.T, cmd string) (request, record string) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"cmd": cmd})
	a, err := Classify(Invocation{ToolName: "exec_command", Arguments: b}, "/w", nil)
	if err != nil {
		t.Fatal(err)
	}
	sc, sum := a.RedactedRecord()
	var cmdShown string
	for _, e := range sc {
		if e.Key == "command" {
			cmdShown = e.Value
		}
	}
	r := a.Redacted()
	var det []string
	for _, d := range r.Details {
		det = append(det, d.Label+": "+d.Value)
	}
	return r.Summary + "\n" + strings.Join(det, "\n"), sum + "\n" + cmdShown
}

// attack193Writes runs cmd with shell in a fresh directory and fails the
// test unless it made a file named v there (the premise: the command
// writes to the place the hidden value names). A missing shell or program
// skips the check.
func attack193Writes(t *testing.T, shell, prog, cmd, v string) {
	t.Helper()
	for _, p := range []string{shell, prog} {
		if _, err := exec.LookPath(p); err != nil {
			return
		}
	}
	dir := t.TempDir()
	x := exec.Command(shell, "-c", cmd)
	x.Dir = dir
	if out, err := x.CombinedOutput(); err != nil {
		t.Fatalf("premise: %s: %s: %v %s", shell, cmd, err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, v)); err != nil {
		t.Fatalf("premise: %s did not write to the hidden value's file: %s", shell, cmd)
	}
}
