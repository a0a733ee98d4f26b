package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack16ServerBinaryLinkDotDot (sixteenth attack review, a variant
// of TestAttack15ServerBinaryLinkChain): the check for a symlink on the
// way to the path the server was started by followed each link, but took
// a ".." for its directory's parent as resolved, and the directory it
// left for a plain one. Serve was started through a link outside every
// root, /usr/local/bin/turnstile (here: a directory outside them), whose
// target is ws/tools/../build/turnstile: ws/build/turnstile and the
// directories above it are kept read-only, but ws/tools, which the kernel
// passes and leaves by its "..", was the command's: it moved it aside and
// made tools a symlink to evil/deep, whose ".." is evil, and an
// evil/build/turnstile of its own, which the next start through
// /usr/local/bin, as root, runs. Controls: a turn in another workspace
// runs the same command, and a link to ws/build/./turnstile (no "..")
// leaves the command in its workspace to run.
func TestAttack16ServerBinaryLinkDotDot(t *testing.T) {
	t.Parallel()
	ws, other := workspace(t), workspace(t)
	copyBinaries(t, filepath.Join(ws, "build"), 0o755)
	if err := os.MkdirAll(filepath.Join(ws, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	sys := t.TempDir()
	started := filepath.Join(sys, "turnstile")
	if err := os.Symlink(ws+"/tools/../build/turnstile", started); err != nil {
		t.Fatal(err)
	}
	s := StartServerBin(t, started, "")
	script := "mv tools tools.old; mkdir -p evil/deep evil/build && printf '#!/bin/sh\\necho the agent was here\\n' > evil/build/turnstile && chmod +x evil/build/turnstile && ln -s evil/deep tools; echo done"

	s.startTurn("dotdot-other", "other", "auto_accept_edits", other)
	if err := os.MkdirAll(filepath.Join(other, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	run := s.execApproved("dotdot-other", "w0", map[string]any{"argv": []string{"sh", "-c", script}})
	if b, err := os.ReadFile(other + "/tools/../build/turnstile"); !run.Ran || err != nil || !strings.HasPrefix(string(b), "#!") {
		t.Fatalf("control: the command in another workspace: %+v %+v %v", run, run.Result, err)
	}

	s.startTurn("dotdot", "ws", "auto_accept_edits", ws)
	run = s.execApproved("dotdot", "w1", map[string]any{"argv": []string{"sh", "-c", script}})
	t.Logf("run: %+v %+v", run, run.Result)
	if b, err := os.ReadFile(started); err != nil || strings.HasPrefix(string(b), "#!") {
		t.Errorf("ESCAPE: the program the server is started by at %s is the command's: %v %q", started, err, b[:min(len(b), 80)])
	}
	if run.Ran || !strings.Contains(run.Message, "started by") {
		t.Errorf("the command was not refused for the directory on the server's path: %+v", run)
	}

	// Control: a link with no "..", whose directories are kept.
	direct := workspace(t)
	copyBinaries(t, filepath.Join(direct, "build"), 0o755)
	link := filepath.Join(t.TempDir(), "turnstile")
	if err := os.Symlink(direct+"/build/./turnstile", link); err != nil {
		t.Fatal(err)
	}
	d := StartServerBin(t, link, "")
	d.startTurn("dotdot-direct", "direct", "auto_accept_edits", direct)
	run = d.execApproved("dotdot-direct", "w2", map[string]any{"argv": []string{"sh", "-c", "echo honest > notes.txt; mkdir tools; mv tools tools.old; echo done"}})
	if b, err := os.ReadFile(filepath.Join(direct, "notes.txt")); !run.Ran || err != nil || string(b) != "honest\n" {
		t.Fatalf("control: the command under a server started through a link with no '..': %+v %+v %v", run, run.Result, err)
	}
}
