package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServerConfigInItsOwnWorkspace: the files a server reads when it
// starts (--profiles, --constraints, --claude-code-config) decide what
// every turn may do after its next start; when they sit in a restricted
// turn's workspace (serve --profiles profiles.toml run from the clone), a
// command of the turn cannot rewrite, replace or move them, while it still
// writes the files beside them (the control). Without this a command wrote
// itself a wider profile, or emptied the operator's constraints, for the
// next start.
func TestServerConfigInItsOwnWorkspace(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	cfg := filepath.Join(ws, "etc")
	if err := os.Mkdir(cfg, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"profiles.toml":    servedProfiles,
		"constraints.toml": "required_deny = [\":workspace_roots/docs\"]\n",
		"claude-code.json": "{}\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(cfg, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := StartServer(t, "", "--profiles", filepath.Join(cfg, "profiles.toml"), "--constraints", filepath.Join(cfg, "constraints.toml"),
		"--claude-code-config", filepath.Join(cfg, "claude-code.json"))
	s.startTurn("own-cfg", "ws", "auto_accept_edits", ws)
	for i, script := range []string{
		"echo > etc/constraints.toml",
		": >> etc/profiles.toml",
		"mv etc/claude-code.json etc/old.json",
		"rm -f etc/profiles.toml",
		"mv etc etc.old",
	} {
		run := s.execApproved("own-cfg", "w"+string(rune('0'+i)), map[string]any{"argv": []string{"sh", "-c", script}})
		if !run.Ran || run.Result == nil || run.Result.ExitCode == 0 {
			t.Errorf("%s: %+v %+v", script, run, run.Result)
		}
	}
	for name, content := range files {
		if b, err := os.ReadFile(filepath.Join(cfg, name)); err != nil || string(b) != content {
			t.Errorf("%s changed: %v %q", name, err, b)
		}
	}
	run := s.execApproved("own-cfg", "ok", map[string]any{"argv": []string{"sh", "-c", "echo y > etc/other.toml && mv etc/other.toml etc/o2.toml && cat etc/o2.toml"}})
	if !run.Ran || run.Result.ExitCode != 0 || strings.TrimSpace(run.Result.Stdout) != "y" {
		t.Fatalf("control: another file beside the configuration: %+v", run.Result)
	}
}

// TestOwnFilesRefusedToEditDecisions: the runtime's own edit tools write
// outside the sandbox, so an apply_patch decision on the server's binary,
// the helper beside it or its configuration is denied in a turn whose
// workspace holds them (a command of the turn finds them read-only too);
// before, it was allowed like any workspace file, and the runtime could
// rewrite the helper the server runs before every command's enforcement.
// Controls: a patch of another workspace file is allowed, and reading the
// protected files is.
func TestOwnFilesRefusedToEditDecisions(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	dir := filepath.Join(ws, "bin")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"turnstile", "turnstile-sandbox"} {
		b, err := os.ReadFile(filepath.Join(filepath.Dir(bin), name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cons := filepath.Join(ws, "constraints.toml")
	if err := os.WriteFile(cons, []byte("required_deny = [\":workspace_roots/docs\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := StartServerBin(t, filepath.Join(dir, "turnstile"), "", "--constraints", cons)
	s.startTurn("own-edit", "ws", "auto_accept_edits", ws)
	patch := func(p string) map[string]any {
		return map[string]any{"patch": "*** Begin Patch\n*** Update File: " + p + "\n@@\n-a\n+b\n*** End Patch\n"}
	}
	for i, p := range []string{filepath.Join(dir, "turnstile-sandbox"), filepath.Join(dir, "turnstile"), cons} {
		if d := s.decide("own-edit", "w"+string(rune('0'+i)), "apply_patch", patch(p)); d.Decision != "deny" {
			t.Errorf("apply_patch %s: %+v", p, d)
		}
		if d := s.decide("own-edit", "r"+string(rune('0'+i)), "read_file", map[string]any{"path": p}); d.Decision != "allow" {
			t.Errorf("control: read_file %s: %+v", p, d)
		}
	}
	if d := s.decide("own-edit", "ok", "apply_patch", patch(filepath.Join(ws, "a.txt"))); d.Decision != "allow" {
		t.Fatalf("control: apply_patch a.txt: %+v", d)
	}
}
