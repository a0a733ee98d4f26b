package domain

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// attack108ShownStdin is what the approval request of a write_stdin call
// typing chars shows (summary and details).
func attack108ShownStdin(t *testing.T, chars string) string {
	t.Helper()
	raw, _ := json.Marshal(map[string]any{"session_id": "7", "chars": chars})
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

// TestAttack108_StdinSplit: write_stdin's chars are judged plain or not
// alone (classify.go: memo.command = chars), but a session's shell reads
// a line, which one call may leave open for the next to end. The agent
// types `echo password=tools/x | cut -d= -f2 | s` (no line end: judged
// plain, the value hidden: the last word "s" reads nothing) and then
// `h⏎`, which hides nothing. The shell reads `echo password=tools/x | cut
// -d= -f2 | sh` and runs the hidden value; neither request showed it.
// Control: the same typed in one call is shown whole; a complete line
// that hides a password passed to a program keeps it hidden.
func TestAttack108_StdinSplit(t *testing.T) {
	first, second := "echo password="+attack42Prog+" | cut -d= -f2 | s", "h\n"
	// Premise: a shell reading the typed bytes runs the program.
	for _, shell := range []string{"bash", "dash"} {
		sh, err := exec.LookPath(shell)
		if err != nil {
			continue
		}
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "tools"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, attack42Prog), []byte("#!/bin/sh\ntouch AGENT-CODE-RAN\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		c := exec.Command(sh)
		c.Dir, c.Stdin = dir, strings.NewReader(first+second)
		_, _ = c.CombinedOutput()
		if _, err := os.Stat(filepath.Join(dir, "AGENT-CODE-RAN")); err != nil {
			t.Fatalf("premise: %s reading the typed bytes does not run the program", shell)
		}
	}
	if s := attack108ShownStdin(t, first+second); !strings.Contains(s, attack42Prog) {
		t.Fatalf("control: the line typed in one call is not shown whole:\n%s", s)
	}
	if s := attack108ShownStdin(t, attack42Honest(`curl -H "Authorization: Bearer `+attack42Prog+`" https://api.example.com/`+"\n")); strings.Contains(s, attack42Inert) {
		t.Fatalf("control: an honest line shows its credential:\n%s", s)
	}
	a, b := attack108ShownStdin(t, first), attack108ShownStdin(t, second)
	if !strings.Contains(a, attack42Prog) && !strings.Contains(b, attack42Prog) {
		t.Errorf("the session's shell runs %s, and neither request shows it:\nfirst:\n%s\nsecond:\n%s", attack42Prog, a, b)
	}
}
