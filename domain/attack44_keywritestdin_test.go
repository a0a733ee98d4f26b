package domain

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack44KeyWriteStdin: write_stdin types chars into a session an
// exec_command started, typically a shell (exec_command {"cmd": "bash",
// "tty": true}), which runs each line typed. Its request shows the chars
// in the Arguments detail, redacted as a text of no known kind: a line
// after a key's marker is hidden as key material wherever it is. So
//
//	write_stdin {"session_id": 3, "chars": "# -----BEGIN PRIVATE KEY-----\n" +
//	    "tools/r4nD0mLooK1nGNam3ForAScr1ptTheAgentWr0te1nTheW0rkspace\n"}
//
// is shown as typing a commented key marker and a "[redacted]" line, and
// the session's shell reads the marker as a comment and runs the program
// (checked with bash and dash reading the chars from their input; each
// skipped where missing). The forty-second review's rule (a shell's text
// hides no key its shell reads outside data) is applied to exec_command's
// command alone.
//
// Control: a key typed inside a quoted here-document stays hidden. The
// secure behaviour asserted: the approval request shows the program.
func TestAttack44KeyWriteStdin(t *testing.T) {
	shown := func(chars string) string {
		raw, _ := json.Marshal(map[string]any{"session_id": 3, "chars": chars})
		a, err := Classify(Invocation{ToolName: "write_stdin", Arguments: raw}, "/w", nil)
		if err != nil {
			t.Fatal(err)
		}
		r := a.Redacted()
		var b strings.Builder
		b.WriteString(r.Summary)
		for _, d := range r.Details {
			b.WriteString("\n" + d.Label + ": " + d.Value)
		}
		return b.String()
	}
	key := "cat > k.pem <<'EOF'\n-----BEGIN PRIVATE KEY-----\n" + attack42L1 + "\n" + attack42L2 + "\n-----END PRIVATE KEY-----\nEOF\n"
	if s := keyReaderShown(t, key); strings.Contains(s, attack42L1) || strings.Contains(s, attack42L2) { // what a shell reads shows its keys since this review
		t.Fatalf("control: a key's line is shown:\n%s", s)
	}
	chars := "# -----BEGIN PRIVATE KEY-----\n" + attack42Prog + "\n"
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
		if err := os.WriteFile(filepath.Join(dir, attack42Prog), []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		c := exec.Command(sh)
		c.Dir = dir
		c.Stdin = strings.NewReader(chars)
		_, _ = c.CombinedOutput()
		if _, err := os.Stat(mark); err != nil {
			t.Fatalf("premise: %s reading the chars does not run the program", shell)
		}
	}
	if s := shown(chars); !strings.Contains(s, attack42Prog) {
		t.Errorf("the session's shell runs %s, and the approval request hides it:\n%s", attack42Prog, s)
	}
}
