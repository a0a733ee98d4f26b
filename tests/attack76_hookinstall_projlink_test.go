package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack76HookInstallFollowsProjectLink: the seventy-fifth review's fix
// (cmd/turnstile/hook.go installInto) opens the project with os.Root so that
// "a link leading out is refused" — for .claude and settings.json. The
// project directory itself is opened with os.OpenRoot(path), which follows
// every link on the way, the last component included. The project's
// parent is the agent's too (~/src of Claude Code's user): the agent
// replaces ~/src/app with
//
//	~/src/app -> /root        (or the server user's home)
//
// and the person, administering as another user as the README asks, runs
// `turnstile hook install claude-code --project ~me/src/app`: the hooks are
// merged into /root/.claude/settings.json (created, with /root/.claude, if
// missing) and a backup is written beside it. The planted .claude link the
// fix refuses is merely moved one level up. What gets written is that user's
// own settings plus turnstile's hook entries — from then on every Claude
// Code session of root's runs the hook with the install's --token-file and
// --server: its prompts and tool calls (PostToolUse carries the tool's
// output) go to the server under the credential the install named (the
// agent's workspace's runtime one), or, where the server takes none of them,
// root's sessions are blocked (the hook fails closed). (Not checked here
// which of the two the server does.)
//
// Severity: low (the written content is not the agent's choice and the
// file is fixed to DIR/.claude/settings.json; the harm is a changed Claude
// Code configuration of the installing user).
//
// Fix: refuse a --project whose named path is a symlink (Lstat, or open it
// O_NOFOLLOW|O_DIRECTORY and root there), or resolve it, say where it
// leads, and refuse a project directory not owned by the user whose project
// it is meant to be (e.g. owned by the installing user while the parent is
// another's). Control: an ordinary project gets the hooks.
func TestAttack76HookInstallFollowsProjectLink(t *testing.T) {
	t.Parallel()
	install := func(project string) (string, string, int) {
		return runCLI(t, "hook", "install", "claude-code", "--project", project, "--server", "http://127.0.0.1:1", "--server-user", "0", "--server-key", testKey)
	}

	// Control: an ordinary project.
	src := t.TempDir() // the agent's ~/src
	ctl := filepath.Join(src, "ctl")
	if err := os.Mkdir(ctl, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := install(ctl); code != 0 {
		t.Fatalf("control: hook install: exit %d\n%s\n%s", code, out, errOut)
	}
	if got, err := os.ReadFile(filepath.Join(ctl, ".claude", "settings.json")); err != nil || !strings.Contains(string(got), "hook claude-code") {
		t.Fatalf("control: the project's settings after install: %v\n%s", err, got)
	}

	// The installing user's home, out of the agent's reach.
	home := t.TempDir()
	if err := os.Chmod(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(home, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(home, ".claude", "settings.json")
	const ownText = `{"model": "opus", "permissions": {"allow": ["Bash(*)"]}}` + "\n"
	if err := os.WriteFile(own, []byte(ownText), 0o600); err != nil {
		t.Fatal(err)
	}

	// The agent replaces its project with a link to that home: a link it
	// owns, or one in its own directory (a link root owns in a directory
	// only root may write is followed: the eighty-third review).
	for _, c := range []struct {
		name               string
		linkUID, parentUID int
	}{{"agent's link", 65534, 0}, {"link in the agent's directory", 0, 65534}} {
		parent := filepath.Join(src, strings.ReplaceAll(c.name, " ", "_"))
		if err := os.Mkdir(parent, 0o755); err != nil {
			t.Fatal(err)
		}
		app := filepath.Join(parent, "app")
		if err := os.Symlink(home, app); err != nil {
			t.Fatal(err)
		}
		if err := os.Lchown(app, c.linkUID, c.linkUID); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(parent, c.parentUID, c.parentUID); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := install(app)
		after, err := os.ReadFile(own)
		if err != nil {
			t.Fatal(err)
		}
		if string(after) != ownText || code == 0 {
			t.Errorf("%s: hook install --project %s (exit %d: %s%s) followed the agent's link and rewrote the installing user's %s:\n%s",
				c.name, app, code, strings.TrimSpace(out), strings.TrimSpace(errOut), own, after)
		}
	}
}
