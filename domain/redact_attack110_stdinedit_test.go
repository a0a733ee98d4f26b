package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack110_StdinLineEditing: write_stdin's chars are judged as the
// shell text they spell, but they are typed into a terminal, whose line
// discipline (and bash's readline) edits the line before the shell reads
// it: DEL (^?, the erase character) deletes the byte before it, ^W the
// word before it. The agent types
//
//	echo password=tools/x | cut -d= -f2 | x<DEL>sh⏎
//	echo password=tools/x | cut -d= -f2 | cat^Wsh⏎
//
// To the parser the last word is "x\x7fsh" or "cat\x17sh", no shell: the
// text is plain and the password hidden. The session's shell reads
// `… | cut -d= -f2 | sh` and runs the hidden value (checked through a
// pseudo-terminal, script(1), with dash and bash).
// Control: the same line typed without the edit is shown whole; a line
// that hides a credential passed to a program keeps it hidden.
func TestAttack110_StdinLineEditing(t *testing.T) {
	pw := "echo password=" + attack42Prog + " | cut -d= -f2 | "
	typed := []string{pw + "x\x7fsh\n", pw + "cat\x17sh\n"}
	scriptBin, err := exec.LookPath("script")
	if err != nil {
		t.Skip("no script(1) to give the shell a terminal")
	}
	for _, chars := range typed {
		for _, shell := range []string{"sh", "bash --norc"} {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "tools"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, attack42Prog), []byte("#!/bin/sh\ntouch AGENT-CODE-RAN\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			c := exec.Command(scriptBin, "-qc", shell, "/dev/null")
			c.Dir, c.Stdin = dir, strings.NewReader(chars+"exit\n")
			_, _ = c.CombinedOutput()
			if _, err := os.Stat(filepath.Join(dir, "AGENT-CODE-RAN")); err != nil {
				t.Fatalf("premise: %s on a terminal typed %q does not run the program", shell, chars)
			}
		}
	}
	if s := attack108ShownStdin(t, pw+"sh\n"); !strings.Contains(s, attack42Prog) {
		t.Fatalf("control: the line typed without the edit is not shown whole:\n%s", s)
	}
	if s := attack108ShownStdin(t, attack42Honest(`curl -H "Authorization: Bearer `+attack42Prog+`" https://api.example.com/`+"\n")); strings.Contains(s, attack42Inert) {
		t.Fatalf("control: an honest line shows its credential:\n%s", s)
	}
	for _, chars := range typed {
		if s := attack108ShownStdin(t, chars); !strings.Contains(s, attack42Prog) {
			t.Errorf("typed %q: the session's shell runs %s, and the request hides it:\n%q", chars, attack42Prog, s)
		}
	}
}
