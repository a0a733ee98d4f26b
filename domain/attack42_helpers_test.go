package domain

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Helpers of the forty-second review's tests.

// attack42Prog is a program named by a relative path, a word of base64
// bytes of 40 or more: the key reader hides it on a line after a marker.
const attack42Prog = "tools/r4nD0mLooK1nGNam3ForAScr1ptTheAgentWr0te1nTheW0rkspace"

// attack42Key is a key's first lines (the controls' key).
const (
	attack42L1 = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"
	attack42L2 = "MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu"
)

// attack42ShownBash is what the approval request of a Claude Code Bash
// call of cmd shows (summary and details): Claude Code runs it with bash.
func attack42ShownBash(t *testing.T, cmd string) string {
	t.Helper()
	in, _ := json.Marshal(map[string]any{"command": cmd, "description": "build"})
	inv, err := ClaudeCodeInvocation("Bash", in, "/home/dev/app")
	if err != nil {
		t.Fatal(err)
	}
	a, err := Classify(inv, "/home/dev/app", nil)
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

// attack42RunsProg runs cmd with shell (bash, dash) in a directory holding
// attack42Prog and reports whether the program ran; ok is false when there
// is no such shell.
func attack42RunsProg(t *testing.T, shell, cmd string) (ran, ok bool) {
	t.Helper()
	sh, err := exec.LookPath(shell)
	if err != nil {
		return false, false
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	mark := filepath.Join(dir, "AGENT-CODE-RAN")
	if err := os.WriteFile(filepath.Join(dir, attack42Prog), []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(sh, "-c", cmd)
	c.Dir = dir
	_, _ = c.CombinedOutput()
	_, err = os.Stat(mark)
	return err == nil, true
}

// attack42KeyControls fails the test when a real key in a quoted
// here-document is shown, by a Claude Code Bash call or by exec_command.
func attack42KeyControls(t *testing.T) {
	t.Helper()
	key := "cat > k.pem <<'EOF'\n-----BEGIN PRIVATE KEY-----\n" + attack42L1 + "\n" + attack42L2 + "\n-----END PRIVATE KEY-----\nEOF\nchmod 600 k.pem"
	// A shell command shows its key blocks since the forty-fourth review
	// (any line may be one the shell runs): the key reader is checked on
	// a text of no known kind, and the command's view for what follows.
	if s := keyReaderShown(t, key); strings.Contains(s, attack42L1) || strings.Contains(s, attack42L2) {
		t.Fatalf("control: the key reader shows a real key:\n%s", s)
	}
	for _, s := range []string{attack42ShownBash(t, key), shownExec(t, map[string]any{"cmd": key})} {
		if !strings.Contains(s, "chmod 600 k.pem") {
			t.Fatalf("control: the command after the key is hidden:\n%s", s)
		}
	}
}

// attack42KeyCase is one command whose key reader hides attack42Prog while
// shells run it: runs names the shells that do (checked), bash says the
// view is a Claude Code Bash call's (else exec_command's, /bin/sh -c).
type attack42KeyCase struct {
	name string
	cmd  string
	runs []string
	bash bool
}

// attack42CheckKeyCases checks each case's premise with the real shells
// (skipping a shell that is missing) and asserts the secure behaviour: the
// approval request shows the program the shell runs.
func attack42CheckKeyCases(t *testing.T, cases []attack42KeyCase) {
	t.Helper()
	attack42KeyControls(t)
	for _, c := range cases {
		for _, sh := range c.runs {
			ran, ok := attack42RunsProg(t, sh, c.cmd)
			if ok && !ran {
				t.Fatalf("premise %s: %s does not run the program of\n%q", c.name, sh, c.cmd)
			}
		}
		var s string
		if c.bash {
			s = attack42ShownBash(t, c.cmd)
		} else {
			s = shownExec(t, map[string]any{"cmd": c.cmd})
		}
		if !strings.Contains(s, attack42Prog) {
			t.Errorf("%s: %v run %s, and the approval request hides it:\n%s", c.name, c.runs, attack42Prog, s)
		}
	}
}

// attack42Inert is an honest password: no '/', no space, nothing of a
// shell's. Since a hidden value must be inert (redact_inert.go), the
// controls that keep an honest password hidden use it.
const attack42Inert = "Zq8vLw3nR2tK9pXsHonestPasswordValue"

// attack42Honest is cmd with attack42Prog's value replaced by attack42Inert.
func attack42Honest(cmd string) string { return strings.ReplaceAll(cmd, attack42Prog, attack42Inert) }
