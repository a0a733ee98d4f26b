package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack13OwnFileSymlinkReplaced (thirteenth attack review): a file the
// server reads when it starts (--profiles here) is kept read-only in a
// restricted turn's writable roots, the file and the directories above it
// (a command can neither write, move nor remove it). Serve was started
// with --profiles naming a symlink in the workspace (profiles.toml ->
// etc/profiles.toml): what was kept was the file the symlink leads to, and
// the symlink, the name the server reads at its next start, was the
// command's: it removed it and wrote a profile of its own at that name.
// Control: a turn whose writable roots hold neither the symlink nor the
// file runs the same command.
func TestAttack13OwnFileSymlinkReplaced(t *testing.T) {
	t.Parallel()
	ws, other := workspace(t), workspace(t)
	cfg := filepath.Join(ws, "etc", "profiles.toml")
	if err := os.Mkdir(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(servedProfiles), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(ws, "profiles.toml")
	if err := os.Symlink("etc/profiles.toml", link); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", link)
	script := "rm -f profiles.toml; printf '# the agent was here\\n' > profiles.toml; echo done"

	s.startTurn("own-sym-other", "other", "auto_accept_edits", other)
	run := s.execApproved("own-sym-other", "w0", map[string]any{"argv": []string{"sh", "-c", script}})
	if b, err := os.ReadFile(filepath.Join(other, "profiles.toml")); !run.Ran || err != nil || !strings.Contains(string(b), "agent") {
		t.Fatalf("control: the command in another workspace: %+v %+v %v", run, run.Result, err)
	}

	s.startTurn("own-sym", "ws", "auto_accept_edits", ws)
	run = s.execApproved("own-sym", "w1", map[string]any{"argv": []string{"sh", "-c", script}})
	t.Logf("run: %+v %+v", run, run.Result)
	if b, err := os.ReadFile(link); err != nil || string(b) != servedProfiles {
		t.Fatalf("ESCAPE: the file the server reads at %s at its next start is the command's: %v %q", link, err, b)
	}
}
