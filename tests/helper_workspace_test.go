package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServerInItsOwnWorkspace: the README's layout, the binaries in bin/ of
// the clone and the clone the turn's workspace. An approved
// auto_accept_edits command cannot rewrite, replace or move the helper the
// server starts before any enforcement, nor the server's binary; control:
// it writes and renames another file of bin/, and the next command still
// runs through the untouched helper.
func TestServerInItsOwnWorkspace(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	dir := filepath.Join(ws, "bin")
	os.Mkdir(dir, 0o755)
	for _, name := range []string{"turnstile", "turnstile-sandbox"} {
		b, err := os.ReadFile(filepath.Join(filepath.Dir(bin), name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	helper, before := filepath.Join(dir, "turnstile-sandbox"), ""
	if b, err := os.ReadFile(helper); err == nil {
		before = string(b)
	}
	s := StartServerBin(t, filepath.Join(dir, "turnstile"), "")
	s.startTurn("own-ws", "ws", "auto_accept_edits", ws)
	for i, script := range []string{
		": >> bin/turnstile-sandbox",
		"echo x > bin/turnstile-sandbox",
		"mv bin/turnstile-sandbox bin/old",
		"mv bin/turnstile bin/old",
		"mv bin bin.old",
	} {
		run := s.execApproved("own-ws", "w"+string(rune('0'+i)), map[string]any{"argv": []string{"sh", "-c", script}})
		if !run.Ran || run.Result.ExitCode == 0 {
			t.Errorf("%s: %+v %+v", script, run, run.Result)
		}
	}
	if b, err := os.ReadFile(helper); err != nil || string(b) != before {
		t.Fatalf("the helper changed: %v", err)
	}
	run := s.execApproved("own-ws", "ok", map[string]any{"argv": []string{"sh", "-c", "echo y > bin/other && mv bin/other bin/other2 && cat bin/other2"}})
	if !run.Ran || run.Result.ExitCode != 0 || strings.TrimSpace(run.Result.Stdout) != "y" {
		t.Fatalf("control: another file of bin/: %+v", run.Result)
	}
}
