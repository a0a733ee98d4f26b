package tests

import "testing"

// attack144HomeSpellings are files a home directory's programs read and
// run at the person's next login, shell, editor, debugger or REPL start,
// by a name the protected list (domain.DefaultProtectedPaths, review 142's
// fix) does not hold, though it holds the tool's other name:
var attack144HomeSpellings = []struct{ path, content, why string }{
	// nvim's runtimepath holds $XDG_DATA_HOME/nvim/site; its plugin/*.lua
	// run at every start (held: .config/nvim).
	{".local/share/nvim/site/plugin/sync.lua", "os.execute('id > /tmp/pwned')\n", "nvim sources site/plugin at start"},
	// Emacs loads ~/.emacs.el before ~/.emacs (load's suffixes; held: .emacs).
	{".emacs.el", "(shell-command \"id > /tmp/pwned\")\n", "Emacs's init file ~/.emacs.el"},
	// vim 9.1 reads $XDG_CONFIG_HOME/vim/vimrc (held: .vimrc, .vim).
	{".config/vim/vimrc", ":silent !id > /tmp/pwned\n", "vim's XDG vimrc"},
	// systemd's user unit path holds $XDG_DATA_HOME/systemd/user and
	// ~/.config/systemd/user.control (held: .config/systemd/user).
	{".local/share/systemd/user/default.target.wants/sync.service", "[Service]\nExecStart=/bin/sh -c 'id > /tmp/pwned'\n", "systemd user unit ($XDG_DATA_HOME)"},
	{".config/systemd/user.control/default.target.wants/sync.service", "[Service]\nExecStart=/bin/sh -c 'id > /tmp/pwned'\n", "systemd user unit (user.control)"},
	// The user manager's own config: DefaultEnvironment for every unit.
	{".config/systemd/user.conf", "[Manager]\nDefaultEnvironment=LD_PRELOAD=/tmp/x.so\n", "systemd user manager's environment"},
	// direnv sources ~/.config/direnv/direnvrc and lib/*.sh before every
	// .envrc (held: .envrc).
	{".config/direnv/direnvrc", "id > /tmp/pwned\n", "direnv's direnvrc"},
	{".config/direnv/lib/sync.sh", "id > /tmp/pwned\n", "direnv's lib"},
	// lldb reads ~/.lldbinit-lldb instead of ~/.lldbinit (held: .lldbinit).
	{".lldbinit-lldb", "platform shell id > /tmp/pwned\n", "lldb's program-specific init"},
	// psql reads ~/.psqlrc-MAJOR before ~/.psqlrc (held: .psqlrc).
	{".psqlrc-16", "\\! id > /tmp/pwned\n", "psql's version-specific psqlrc"},
	// irb and pry read their XDG files (held: .irbrc, .pryrc).
	{".config/irb/irbrc", "system('id > /tmp/pwned')\n", "irb's XDG irbrc"},
	{".config/pry/pryrc", "system('id > /tmp/pwned')\n", "pry's XDG pryrc"},
	// Mercurial's user config: its hooks run on the person's hg commands
	// (held: .hg/hgrc).
	{".hgrc", "[hooks]\npre-commit = id > /tmp/pwned\n", "Mercurial's ~/.hgrc hooks"},
	{".config/hg/hgrc", "[hooks]\npre-commit = id > /tmp/pwned\n", "Mercurial's XDG hgrc hooks"},
	// pdb runs ~/.pdbrc's lines at every breakpoint session.
	{".pdbrc", "import os; os.system('id > /tmp/pwned')\n", "pdb's ~/.pdbrc"},
	// The REPLs' start-up files.
	{".julia/config/startup.jl", "run(`sh -c 'id > /tmp/pwned'`)\n", "julia's startup.jl"},
	{".sqliterc", ".shell id > /tmp/pwned\n", "sqlite3's ~/.sqliterc"},
	{".ghci", ":! id > /tmp/pwned\n", "ghci's ~/.ghci"},
	// KDE Plasma sources env/*.sh at every login.
	{".config/plasma-workspace/env/sync.sh", "id > /tmp/pwned\n", "Plasma's login env scripts"},
	// The window managers' configs run their exec lines at login.
	{".config/i3/config", "exec --no-startup-id sh -c 'id > /tmp/pwned'\n", "i3's exec"},
	{".config/sway/config", "exec sh -c 'id > /tmp/pwned'\n", "sway's exec"},
	{".config/hypr/hyprland.conf", "exec-once = sh -c 'id > /tmp/pwned'\n", "Hyprland's exec-once"},
	// Editors' user settings naming programs they run.
	{".config/helix/languages.toml", "[language-server.rust-analyzer]\ncommand = \"/bin/sh\"\nargs = [\"-c\", \"id > /tmp/pwned\"]\n", "helix's language servers (held: .helix)"},
	{".config/zed/settings.json", "{\"terminal\": {\"shell\": {\"program\": \"/tmp/x\"}}}\n", "zed's settings (held: .zed)"},
	{".config/Code/User/settings.json", "{\"terminal.integrated.defaultProfile.linux\": \"x\", \"terminal.integrated.profiles.linux\": {\"x\": {\"path\": \"/tmp/x\"}}}\n", "VS Code's user settings (held: .vscode)"},
	// starship runs its custom modules' commands at every prompt.
	{".config/starship.toml", "[custom.x]\ncommand = \"id > /tmp/pwned\"\nwhen = true\n", "starship's custom modules"},
	// The session bus starts a user service file's Exec= when a program
	// asks for its name (a notification); PipeWire runs context.exec at
	// its start (every login).
	{".local/share/dbus-1/services/org.freedesktop.Notifications.service", "[D-BUS Service]\nName=org.freedesktop.Notifications\nExec=/bin/sh -c 'id > /tmp/pwned'\n", "D-Bus session service activation"},
	{".config/pipewire/pipewire.conf.d/99-sync.conf", "context.exec = [ { path = \"/bin/sh\" args = \"-c 'id > /tmp/pwned'\" } ]\n", "PipeWire's context.exec"},
	// oh-my-zsh sources $ZSH_CUSTOM/*.zsh in every zsh.
	{".oh-my-zsh/custom/sync.zsh", "id > /tmp/pwned\n", "oh-my-zsh's custom"},
}

// TestAttack144_HookWriteHomeStartSpellings: in a project rooted at the
// home directory in auto_accept_edits (as Claude Code started in ~), Claude
// Code's Write of each file of attack144HomeSpellings is answered "allow"
// without a question, while the held spellings of the same tools (.vimrc,
// .config/nvim, .emacs, .config/systemd/user, .envrc, .lldbinit, .psqlrc,
// .irbrc, .hg/hgrc) are denied (TestAttack144_HookWriteHomeStartSpellingsControl).
func TestAttack144_HookWriteHomeStartSpellings(t *testing.T) {
	home := workspace(t)
	s := ccServer(t, home, "auto_accept_edits", nil)
	for i, c := range attack144HomeSpellings {
		if got := attack142HookWrite(t, s, home, "sess-144h", i, c.path, c.content); got != "deny" {
			t.Errorf("Claude Code's Write of ~/%s: %s, want deny (%s): the person's next start runs it", c.path, got, c.why)
		}
	}
}

// TestAttack144_HookWriteHomeStartSpellingsControl: the held spellings are
// denied in the same session shape; an ordinary file is allowed.
func TestAttack144_HookWriteHomeStartSpellingsControl(t *testing.T) {
	home := workspace(t)
	s := ccServer(t, home, "auto_accept_edits", nil)
	for i, c := range []struct{ path, want string }{
		{".vimrc", "deny"}, {".config/nvim/init.lua", "deny"}, {".emacs", "deny"},
		{".config/systemd/user/default.target.wants/sync.service", "deny"},
		{".envrc", "deny"}, {".lldbinit", "deny"}, {".psqlrc", "deny"}, {".irbrc", "deny"}, {".pryrc", "deny"},
		{".hg/hgrc", "deny"}, {".vscode/settings.json", "deny"}, {".zed/settings.json", "deny"},
		{"notes/todo.txt", "allow"},
	} {
		if got := attack142HookWrite(t, s, home, "sess-144hc", i, c.path, "x\n"); got != c.want {
			t.Errorf("control: Claude Code's Write of ~/%s: %s, want %s", c.path, got, c.want)
		}
	}
}

// TestAttack144_RESTWriteProjectREPLFiles: a project's own start-up files
// the person's REPLs and debuggers read from the current directory: pdb
// runs ./.pdbrc's lines (Python statements) at every breakpoint session
// (pytest --pdb, breakpoint()); irb reads ./irb.rc and ./_irbrc as it
// reads ./.irbrc (held); ghci runs ./.ghci. In a turn over a project in
// auto_accept_edits, a runtime's apply_patch of each is allowed, while
// ./.irbrc and ./.pryrc are refused
// (TestAttack144_RESTWriteProjectREPLFilesControl).
func TestAttack144_RESTWriteProjectREPLFiles(t *testing.T) {
	s := editsTurn(t, "repl144", "src")
	for i, p := range []string{".pdbrc", "irb.rc", "_irbrc", ".ghci"} {
		d := s.decide("repl144", "r"+string(rune('a'+i)), "apply_patch", addFilePatch(p, "import os; os.system('id > /tmp/pwned')"))
		if d.Decision != "deny" {
			t.Errorf("apply_patch of ./%s: %s/%s/%s, want deny, as ./.irbrc is: the person's next REPL or debugger in the project runs it", p, d.Decision, d.Reason, d.Refusal)
		}
	}
}

// TestAttack144_RESTWriteProjectREPLFilesControl: ./.irbrc and ./.pryrc are
// refused; an ordinary file is allowed.
func TestAttack144_RESTWriteProjectREPLFilesControl(t *testing.T) {
	s := editsTurn(t, "repl144c", "src")
	for i, p := range []string{".irbrc", ".pryrc"} {
		if d := s.decide("repl144c", "c"+string(rune('a'+i)), "apply_patch", addFilePatch(p, "x")); d.Decision != "deny" {
			t.Errorf("control: apply_patch of ./%s: %s/%s/%s, want deny", p, d.Decision, d.Reason, d.Refusal)
		}
	}
	if d := s.decide("repl144c", "ok", "apply_patch", addFilePatch("src/main.py", "x")); d.Decision != "allow" {
		t.Errorf("control: apply_patch of ./src/main.py: %s/%s/%s, want allow", d.Decision, d.Reason, d.Refusal)
	}
}
