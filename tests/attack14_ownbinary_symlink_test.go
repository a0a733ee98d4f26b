package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack14ServerBinaryPathSymlinkReplaced (fourteenth attack review, a
// variant of the thirteenth's TestAttack13OwnFileSymlinkReplaced for the
// server's own program): the server's binary, and the lean helper beside
// it, are kept read-only in a restricted turn's writable roots, with the
// directories above them. Serve was started as ws/bin/turnstile, where
// ws/bin is a symlink to ws/build: what was kept was ws/build/turnstile
// (os.Executable resolves every link), and the symlink on the path the
// person starts the server by was the command's: it removed it and made a
// bin/turnstile of its own, which the next start of the server, as root,
// runs. Controls: a turn whose writable roots hold neither the symlink nor
// the binary runs the same command; a server started through a symlink in
// a read-only protected directory of the root (.local/bin, as under a home
// granted writable) runs a command there, which cannot replace the link.
func TestAttack14ServerBinaryPathSymlinkReplaced(t *testing.T) {
	t.Parallel()
	ws, other := workspace(t), workspace(t)
	copyBinaries(t, filepath.Join(ws, "build"), 0o755)
	if err := os.Symlink("build", filepath.Join(ws, "bin")); err != nil {
		t.Fatal(err)
	}
	started := filepath.Join(ws, "bin", "turnstile")
	s := StartServerBin(t, started, "")
	script := "rm -f bin; mkdir -p bin && printf '#!/bin/sh\\necho the agent was here\\n' > bin/turnstile && chmod +x bin/turnstile; echo done"

	s.startTurn("own-bin-other", "other", "auto_accept_edits", other)
	run := s.execApproved("own-bin-other", "w0", map[string]any{"argv": []string{"sh", "-c", script}})
	if b, err := os.ReadFile(filepath.Join(other, "bin", "turnstile")); !run.Ran || err != nil || !strings.HasPrefix(string(b), "#!") {
		t.Fatalf("control: the command in another workspace: %+v %+v %v", run, run.Result, err)
	}

	s.startTurn("own-bin", "ws", "auto_accept_edits", ws)
	run = s.execApproved("own-bin", "w1", map[string]any{"argv": []string{"sh", "-c", script}})
	t.Logf("run: %+v %+v", run, run.Result)
	if run.Ran || !strings.Contains(run.Message, "started by") {
		t.Errorf("the command was not refused for the symlink on the server's path: %+v", run)
	}
	if b, err := os.ReadFile(started); err != nil || strings.HasPrefix(string(b), "#!") {
		t.Fatalf("ESCAPE: the program the server is started by at %s is the command's: %v %q", started, err, b[:min(len(b), 80)])
	}

	// Control: the symlink in .local/bin, which stays read-only.
	home := workspace(t)
	copyBinaries(t, filepath.Join(home, "src", "bin"), 0o755)
	if err := os.MkdirAll(filepath.Join(home, ".local", "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(home, ".local", "bin", "turnstile")
	if err := os.Symlink("../../src/bin/turnstile", link); err != nil {
		t.Fatal(err)
	}
	h := StartServerBin(t, link, "")
	h.startTurn("own-bin-home", "home", "auto_accept_edits", home)
	run = h.execApproved("own-bin-home", "w2", map[string]any{"argv": []string{"sh", "-c", "echo honest > notes.txt; rm -f .local/bin/turnstile; echo done"}})
	if b, err := os.ReadFile(filepath.Join(home, "notes.txt")); !run.Ran || err != nil || string(b) != "honest\n" {
		t.Fatalf("control: the command under a server started through .local/bin: %+v %+v %v", run, run.Result, err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("control: the symlink in .local/bin was replaced: %v", err)
	}
}
