package domain

import (
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// attack44EncodedKeyLines returns a PEM key file's base64, wrapped at 76
// columns (as base64 wraps it), with no '/' in it.
func attack44EncodedKeyLines(t *testing.T) []string {
	t.Helper()
	var body strings.Builder
	for i := 0; body.Len() < 300; i++ {
		body.WriteString("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC00" + string(rune('0'+i/10)) + string(rune('0'+i%10)) + "\n")
	}
	enc := base64.StdEncoding.EncodeToString([]byte("-----BEGIN PRIVATE KEY-----\n" + body.String() + "-----END PRIVATE KEY-----\n"))
	if strings.Contains(enc, "/") {
		t.Fatal("the encoding holds a '/'")
	}
	var lines []string
	for len(enc) > 76 {
		lines, enc = append(lines, enc[:76]), enc[76:]
	}
	return append(lines, enc)
}

// TestAttack44EncodedKeyLinesRun: redactEncodedKeys hides a key file's
// base64 wrapped over lines, each a run of base64 alone on its line,
// wherever the text is: it is not gated by keyMarkersInData (the
// thirty-ninth review's rule that a key's line the shell reads outside
// data is a line it runs, and stays in view), which reads the plain
// markers alone. Each wrapped line outside quotes is a command: a word
// of base64 bytes the shell looks up as a program (in PATH, which a
// trailing ':' makes search the working directory). So a Claude Code
// Bash call (bash) or an exec_command call (dash)
//
//	PATH=$PATH:
//	echo LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JSUV2UUlCQURBTkJna3Foa2lHOXcwQkFR
//	RUZBQVNDQktjd2dnU2pBZ0VBQW9JQkFRQzAwMDAKTUlJRXZRSUJBREFOQmdrcWhraUc5dzBCQVFF
//	…
//
// is shown as "echo [redacted]" and lines of "[redacted]", and the shell
// runs each line after the first as a program of the working directory
// (files the agent wrote; checked with bash and dash, each skipped where
// missing).
//
// Control: the same encoded key in quotes stays hidden. The secure
// behaviour asserted: the approval request shows the programs' names.
func TestAttack44EncodedKeyLinesRun(t *testing.T) {
	lines := attack44EncodedKeyLines(t)
	quoted := "echo '" + strings.Join(lines, "\n") + "' | base64 -d > k.pem"
	// A shell command shows its keys since this review: the key reader is
	// checked on a text of no known kind.
	if s := keyReaderShown(t, quoted); strings.Contains(s, lines[1]) || !strings.Contains(s, "base64 -d > k.pem") {
		t.Fatalf("control: the key reader shows a quoted encoded key:\n%s", s)
	}
	cmd := "PATH=$PATH:\necho " + strings.Join(lines, "\n")
	for _, shell := range []string{"bash", "dash"} {
		sh, err := exec.LookPath(shell)
		if err != nil {
			continue
		}
		dir := t.TempDir()
		mark := filepath.Join(dir, "AGENT-CODE-RAN")
		if err := os.WriteFile(filepath.Join(dir, lines[1]), []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		c := exec.Command(sh, "-c", cmd)
		c.Dir = dir
		_, _ = c.CombinedOutput()
		if _, err := os.Stat(mark); err != nil {
			t.Fatalf("premise: %s does not run the program %s", shell, lines[1])
		}
	}
	for _, s := range []string{attack42ShownBash(t, cmd), shownExec(t, map[string]any{"cmd": cmd})} {
		if !strings.Contains(s, lines[1]) {
			t.Errorf("the shell runs ./%s, and the approval request hides it:\n%s", lines[1], s)
		}
	}
}
