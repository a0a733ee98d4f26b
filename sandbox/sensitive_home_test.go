package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestSensitiveHomePatternsMasked: the built-in credential stores of every
// home under /home are patterns (/home/*/.ssh, /home/*/.netrc, …). With
// such a home as the root, a command in supervised or auto_accept_edits
// mode cannot read them: each path that matches a pattern when the command
// starts is masked like a plain sensitive path (an attack review read
// .ssh/id_rsa, .netrc and .aws/credentials this way). The control: a file
// next to them reads fine.
func TestSensitiveHomePatternsMasked(t *testing.T) {
	requireKernel(t, true)
	if err := os.MkdirAll("/home", 0o755); err != nil {
		t.Fatal(err)
	}
	home, err := os.MkdirTemp("/home", "turnstile-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	os.Chmod(home, 0o755)
	mkfiles(t, home, map[string]string{".ssh/id_rsa": "SSHSECRET\n", ".netrc": "machine h password NETRCSECRET\n",
		".aws/credentials": "AWSSECRET\n", ".config/gcloud/adc.json": "GCLOUDSECRET\n", "notes.txt": "visible\n"})
	for _, mode := range []domain.Mode{domain.ModeSupervised, domain.ModeAutoAcceptEdits} {
		s := snapshotFor(t, mode, home, machine().Kernel)
		r := sh(t, s, "cat notes.txt; for f in .ssh/id_rsa .netrc .aws/credentials .config/gcloud/adc.json; do cat $f; done 2>&1; ls -a .ssh 2>&1; true")
		out := string(r.Stdout)
		if !strings.Contains(out, "visible") {
			t.Fatalf("%s: the control file was not read (%d): %s %s", mode, r.ExitCode, out, r.Stderr)
		}
		for _, secret := range []string{"SSHSECRET", "NETRCSECRET", "AWSSECRET", "GCLOUDSECRET", "id_rsa\n"} {
			if strings.Contains(out, secret) {
				t.Errorf("%s: the command read %q:\n%s", mode, secret, out)
			}
		}
	}
}

// TestClaudeSettingsCannotBePlanted: Claude Code runs the hooks a
// project's .claude/settings.json lists, outside any sandbox, the next
// time it starts there. Where the workspace has no .claude yet, a command
// in auto_accept_edits cannot create it (it is held, empty and read-only,
// for the command, like .codex and .agents), at the root or at its cwd;
// the control: another new directory is created, and nothing is left of
// the hold afterwards.
func TestClaudeSettingsCannotBePlanted(t *testing.T) {
	requireKernel(t, true)
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"sub/main.go": "package main\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
	plant := `mkdir -p .claude; echo '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch /tmp/x"}]}]}}' > .claude/settings.json`
	if r := sh(t, s, plant); r.ExitCode == 0 {
		t.Errorf("planting .claude/settings.json at the root succeeded")
	}
	sub := snapshotAt(t, domain.ModeAutoAcceptEdits, ws, ws+"/sub")
	if r := sh(t, sub, plant); r.ExitCode == 0 {
		t.Errorf("planting .claude/settings.json at the cwd succeeded")
	}
	if r := sh(t, s, "mkdir .notclaude && echo {} > .notclaude/settings.json && echo ok"); r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("the control failed (%d): %s", r.ExitCode, r.Stderr)
	}
	WaitCleanup()
	for _, p := range []string{ws + "/.claude", ws + "/sub/.claude"} {
		if exists(p) {
			t.Errorf("%s is left after the commands", p)
		}
	}
}

// TestClaudeSettingsCannotBePlantedAtAnExecCwd: a command run in a
// subdirectory of the workspace (an exec's cwd, not the turn's) cannot
// create .claude there either, nor .git; the control: it writes files in
// that directory, and a new directory beside it.
func TestClaudeSettingsCannotBePlantedAtAnExecCwd(t *testing.T) {
	requireKernel(t, true)
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"pkg/main.go": "package main\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
	runIn := func(script string) *Result {
		r, err := run(t, s, SpawnRequest{Argv: []string{"/bin/sh", "-c", script}, Cwd: ws + "/pkg"}, nil)
		if err != nil {
			t.Fatalf("run %q: %v", script, err)
		}
		return r
	}
	if r := runIn(`mkdir -p .claude && echo '{"hooks":{}}' > .claude/settings.json`); r.ExitCode == 0 {
		t.Error("planting .claude/settings.json at the exec's cwd succeeded")
	}
	if r := runIn("git init -q ."); r.ExitCode == 0 {
		t.Error("git init at the exec's cwd succeeded")
	}
	if r := runIn("echo x > notes.txt && mkdir ../lib && echo ok"); r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("the control failed (%d): %s", r.ExitCode, r.Stderr)
	}
	WaitCleanup()
	if exists(ws+"/pkg/.claude") || exists(ws+"/pkg/.git") {
		t.Error("a hold is left after the commands")
	}
}

// TestCwdSwappedAfterThePlanIsRefused: between the plan (which resolved the
// working directory) and the helper's chdir, another command swaps the
// directory for a link to elsewhere; the helper refuses (126) and the
// command does not run there. The control: the same plan, unswapped, runs
// in the planned directory.
func TestCwdSwappedAfterThePlanIsRefused(t *testing.T) {
	requireKernel(t, true)
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"sub/a.txt": "a\n", "elsewhere/b.txt": "b\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
	req := SpawnRequest{Argv: []string{"/bin/sh", "-c", "pwd -P; touch ran-here"}, Cwd: ws + "/sub"}
	r, err := run(t, s, req, nil)
	if err != nil || r.ExitCode != 0 || strings.TrimSpace(string(r.Stdout)) != ws+"/sub" {
		t.Fatalf("control: %v %+v", err, r)
	}
	r, _ = run(t, s, req, func(*Plan) {
		if err := os.Rename(ws+"/sub", ws+"/sub.orig"); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(ws+"/elsewhere", ws+"/sub"); err != nil {
			t.Fatal(err)
		}
	})
	if r == nil || r.ExitCode != ExitSandboxFailure || exists(ws+"/elsewhere/ran-here") {
		t.Fatalf("after the swap the command ran (or did not fail closed): %+v", r)
	}
}
