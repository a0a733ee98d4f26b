package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack15ServerBinaryLinkChain (fifteenth attack review, a variant of
// TestAttack14ServerBinaryPathSymlinkReplaced): the check for a symlink on
// the path the server was started by looked at that path's own
// directories, not at the links it leads through. Serve was started as
// /usr/local/bin/turnstile (here: a directory outside every root), a
// symlink to ws/current/turnstile, where ws/current is a symlink to
// ws/build: the first link lies outside the writable roots and the binary,
// ws/build/turnstile, is kept read-only, but ws/current was the
// command's: it removed it and made a current/turnstile of its own, which
// the next start through /usr/local/bin, as root, runs. Controls: a turn
// in another workspace runs the same command, and so does one in this
// workspace under a server started through a link straight to the
// binary.
func TestAttack15ServerBinaryLinkChain(t *testing.T) {
	t.Parallel()
	ws, other := workspace(t), workspace(t)
	copyBinaries(t, filepath.Join(ws, "build"), 0o755)
	if err := os.Symlink("build", filepath.Join(ws, "current")); err != nil {
		t.Fatal(err)
	}
	sys := t.TempDir()
	started := filepath.Join(sys, "turnstile")
	if err := os.Symlink(filepath.Join(ws, "current", "turnstile"), started); err != nil {
		t.Fatal(err)
	}
	s := StartServerBin(t, started, "")
	script := "rm -f current; mkdir -p current && printf '#!/bin/sh\\necho the agent was here\\n' > current/turnstile && chmod +x current/turnstile; echo done"

	s.startTurn("chain-other", "other", "auto_accept_edits", other)
	run := s.execApproved("chain-other", "w0", map[string]any{"argv": []string{"sh", "-c", script}})
	if b, err := os.ReadFile(filepath.Join(other, "current", "turnstile")); !run.Ran || err != nil || !strings.HasPrefix(string(b), "#!") {
		t.Fatalf("control: the command in another workspace: %+v %+v %v", run, run.Result, err)
	}

	s.startTurn("chain", "ws", "auto_accept_edits", ws)
	run = s.execApproved("chain", "w1", map[string]any{"argv": []string{"sh", "-c", script}})
	t.Logf("run: %+v %+v", run, run.Result)
	if b, err := os.ReadFile(started); err != nil || strings.HasPrefix(string(b), "#!") {
		t.Fatalf("ESCAPE: the program the server is started by at %s is the command's: %v %q", started, err, b[:min(len(b), 80)])
	}
	if run.Ran || !strings.Contains(run.Message, "started by") {
		t.Errorf("the command was not refused for the symlink on the server's path: %+v", run)
	}

	// Control: a link straight to the binary, whose directories are kept.
	direct := workspace(t)
	copyBinaries(t, filepath.Join(direct, "build"), 0o755)
	link := filepath.Join(t.TempDir(), "turnstile")
	if err := os.Symlink(filepath.Join(direct, "build", "turnstile"), link); err != nil {
		t.Fatal(err)
	}
	d := StartServerBin(t, link, "")
	d.startTurn("chain-direct", "direct", "auto_accept_edits", direct)
	run = d.execApproved("chain-direct", "w2", map[string]any{"argv": []string{"sh", "-c", "echo honest > notes.txt; rm -rf build; echo done"}})
	if b, err := os.ReadFile(filepath.Join(direct, "notes.txt")); !run.Ran || err != nil || string(b) != "honest\n" {
		t.Fatalf("control: the command under a server started through a direct link: %+v %+v %v", run, run.Result, err)
	}
	if fi, err := os.Stat(link); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("control: the binary behind the direct link went: %v", err)
	}
}
