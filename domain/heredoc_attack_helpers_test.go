package domain

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// execShown is what the approver is shown of an exec_command running cmd:
// its redacted summary.
func execShown(t *testing.T, cmd string) string {
	t.Helper()
	raw, _ := json.Marshal(map[string]any{"cmd": cmd})
	a, err := Classify(Invocation{ToolName: "exec_command", Arguments: raw}, "/w", nil)
	if err != nil {
		t.Fatalf("%q: %v", cmd, err)
	}
	return a.Redacted().Summary
}

// ranAfter runs cmd under bash and reports whether the command after its
// here-document ran (it echoes RAN-AFTER): the premise of an attack that
// hides a delimiter, checked on the shell itself.
func ranAfter(t *testing.T, cmd string) bool {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("no bash: the premise cannot be checked")
	}
	out, _ := exec.Command(bash, "-c", cmd).CombinedOutput()
	return strings.Contains(string(out), "RAN-AFTER")
}

// keyReaderShown is cmd as a text of no known kind is shown (RedactText,
// the key reader on its own, as for a tool's arguments): the controls of
// the here-document reviews, keys written in forms a shell command's
// lexer does not model (shellDataSpans), which an exec_command shows
// whole since the forty-second review.
func keyReaderShown(t *testing.T, cmd string) string {
	t.Helper()
	return runPrefix + RedactText(cmd)
}
