package domain

import (
	"cmp"
	"path"
)

// ProtectedPath is one entry of a protected-path list: a path, relative to
// each writable root (and to the cwd inside one), that the commands of a
// restricted turn may not move aside, remove or replace, and, with Access
// read, not change at all. It is policy: a host program (git, a shell, an
// editor, an agent runtime) reads these files the next time a person works
// in the root and may run what they say.
type ProtectedPath struct {
	// Path is relative to the root, slash-separated and clean (".git/config").
	Path string `json:"path"`
	// Access is what stays allowed below the path: read (the path and its
	// subtree are read-only) or write (the path cannot be renamed, removed
	// or replaced, nor can any directory between it and the root; its
	// contents stay writable).
	Access Access `json:"access"`
	// AtCwd marked the items also protected relative to the cwd.
	//
	// Deprecated: every item is protected at a cwd that lies strictly
	// inside a writable root, as at the root (a tool setting or shell
	// start-up file created at the turn's cwd stayed: the seventy-third
	// review); the field is kept for lists that set it and selects nothing.
	AtCwd bool `json:"at_cwd,omitempty"`
	// Reserved holds the name when it does not exist at spawn, so that the
	// command cannot create it.
	Reserved bool `json:"reserved,omitempty"`
}

// DefaultProtectedPaths is the built-in protected-path list (provenance
// system). A profile may replace it (SnapshotInputs.ProtectedPaths).
//
// Git's own directory stays writable so that add, commit, branch and fetch
// work (objects, refs, index, logs, HEAD), but it cannot be moved or
// replaced, and what makes git run a program stays read-only: the config,
// hooks and info (the enforcement adds, for every ".git" it finds in a
// writable root, the same for the git dir a pointer file names, the
// submodules' git dirs and nested repositories).
var DefaultProtectedPaths = []ProtectedPath{
	{Path: ".git", Access: AccessWrite, Reserved: true},
	{Path: ".git/config", Access: AccessRead},
	{Path: ".git/hooks", Access: AccessRead},
	{Path: ".git/info", Access: AccessRead},
	{Path: ".agents", Access: AccessRead, Reserved: true},
	{Path: ".codex", Access: AccessRead, Reserved: true},
	{Path: ".claude", Access: AccessRead, Reserved: true},
	{Path: ".vscode", Access: AccessRead},
	{Path: ".idea", Access: AccessRead},
	{Path: ".aws", Access: AccessRead},
	{Path: ".ssh", Access: AccessRead},
	{Path: ".mcp.json", Access: AccessRead},
	{Path: ".envrc", Access: AccessRead},
	// Other agents' and editors' project settings that start programs:
	// MCP servers (Gemini CLI, Cursor), a dev container's
	// initializeCommand (run on the host), aider's lint and test commands,
	// mise's hooks and environment scripts, pre-commit's local hooks (run
	// by the person's next commit).
	{Path: ".gemini", Access: AccessRead},
	{Path: ".cursor", Access: AccessRead},
	{Path: ".devcontainer", Access: AccessRead},
	{Path: ".devcontainer.json", Access: AccessRead},
	{Path: ".aider.conf.yml", Access: AccessRead},
	// .env: aider reads every option from it too (AIDER_LINT_CMD runs
	// after its first edit; AIDER_OPENAI_API_BASE sends the person's key
	// elsewhere), oh-my-zsh's dotenv plugin sources it as shell on cd
	// (its "always" answer trusts the directory, not the content), and
	// docker compose takes its COMPOSE_ settings from it (the
	// hundred-and-fifty-seventh review). A profile whose protected list
	// leaves it out lets the agent edit it.
	{Path: ".env", Access: AccessRead},
	{Path: "mise.toml", Access: AccessRead},
	{Path: ".mise.toml", Access: AccessRead},
	{Path: "mise.local.toml", Access: AccessRead},
	{Path: ".mise.local.toml", Access: AccessRead},
	// mise reads the same config at these paths too (mise/ and .mise/
	// hold other files, such as tasks a person runs by name, so only the
	// config files in them).
	{Path: "mise/config.toml", Access: AccessRead},
	{Path: "mise/config.local.toml", Access: AccessRead},
	{Path: ".mise/config.toml", Access: AccessRead},
	{Path: ".mise/config.local.toml", Access: AccessRead},
	{Path: ".config/mise.toml", Access: AccessRead},
	{Path: ".config/mise.local.toml", Access: AccessRead},
	{Path: ".config/mise", Access: AccessRead},
	// (and its files by name, which the sandbox keeps at any depth)
	{Path: ".config/mise/config.toml", Access: AccessRead},
	{Path: ".config/mise/config.local.toml", Access: AccessRead},
	// and at its older name, rtx's.
	{Path: ".rtx.toml", Access: AccessRead},
	{Path: ".rtx.local.toml", Access: AccessRead},
	// asdf's (and mise's) tool versions, read by asdf's shims each time
	// the person runs a tool there: a version "path:DIR" runs DIR/bin's.
	{Path: ".tool-versions", Access: AccessRead},
	// Other launcher and toolchain files a host program looks up in the
	// directory a person works in (and those above it) that make the
	// person's next tool there run a program the file names (the
	// hundred-and-thirty-sixth review): yarn's yarn-path and yarnPath
	// (node runs the named script for every yarn command), rustup's
	// toolchain path (every cargo and rustc runs its bin), Maven's JVM
	// options for every mvn (-XX:OnOutOfMemoryError runs a command) and
	// its command-line options (-Dmaven.ext.class.path loads a jar), the
	// R profile R and Rscript source, and .NET's global.json (sdk.paths:
	// where the dotnet host takes its SDK from).
	{Path: ".yarnrc", Access: AccessRead},
	{Path: ".yarnrc.yml", Access: AccessRead},
	{Path: "rust-toolchain", Access: AccessRead},
	{Path: "rust-toolchain.toml", Access: AccessRead},
	{Path: ".mvn/jvm.config", Access: AccessRead},
	{Path: ".mvn/maven.config", Access: AccessRead},
	{Path: ".Rprofile", Access: AccessRead},
	{Path: "global.json", Access: AccessRead},
	// And those that do the same another way (the
	// hundred-and-thirty-ninth review): R's .Renviron (R_PROFILE_USER
	// names another profile to source), Cargo's config (a rustc-wrapper
	// every cargo build runs), sbt's .jvmopts and .sbtopts (JVM options),
	// Bun's bunfig.toml (a preload every bun run loads). A project's build
	// files proper (gradle.properties, build.gradle, package.json) are the
	// project's code, which the agent edits by design.
	{Path: ".Renviron", Access: AccessRead},
	{Path: ".cargo/config", Access: AccessRead},
	{Path: ".cargo/config.toml", Access: AccessRead},
	{Path: ".jvmopts", Access: AccessRead},
	{Path: ".sbtopts", Access: AccessRead},
	{Path: "bunfig.toml", Access: AccessRead},
	{Path: ".pre-commit-config.yaml", Access: AccessRead},
	// prek, which reads pre-commit's config, takes it at .yml too, and
	// its own at prek.toml; hk's
	// config and its local override, read by the hook hk install puts in
	// .git/hooks.
	{Path: ".pre-commit-config.yml", Access: AccessRead},
	{Path: "prek.toml", Access: AccessRead},
	{Path: "hk.pkl", Access: AccessRead},
	{Path: "hk.local.pkl", Access: AccessRead},
	{Path: ".config/hk.pkl", Access: AccessRead},
	{Path: ".config/hk.local.pkl", Access: AccessRead},
	// lefthook's config and scripts, read by the hook lefthook install
	// put in .git/hooks on the person's next commit (as pre-commit's):
	// the main config and the local one merged on top of it, each as
	// NAME, .NAME or .config/NAME with any of the five extensions
	// lefthook reads.
	{Path: "lefthook.yml", Access: AccessRead},
	{Path: "lefthook.yaml", Access: AccessRead},
	{Path: "lefthook.json", Access: AccessRead},
	{Path: "lefthook.jsonc", Access: AccessRead},
	{Path: "lefthook.toml", Access: AccessRead},
	{Path: ".lefthook.yml", Access: AccessRead},
	{Path: ".lefthook.yaml", Access: AccessRead},
	{Path: ".lefthook.json", Access: AccessRead},
	{Path: ".lefthook.jsonc", Access: AccessRead},
	{Path: ".lefthook.toml", Access: AccessRead},
	{Path: ".config/lefthook.yml", Access: AccessRead},
	{Path: ".config/lefthook.yaml", Access: AccessRead},
	{Path: ".config/lefthook.json", Access: AccessRead},
	{Path: ".config/lefthook.jsonc", Access: AccessRead},
	{Path: ".config/lefthook.toml", Access: AccessRead},
	{Path: "lefthook-local.yml", Access: AccessRead},
	{Path: "lefthook-local.yaml", Access: AccessRead},
	{Path: "lefthook-local.json", Access: AccessRead},
	{Path: "lefthook-local.jsonc", Access: AccessRead},
	{Path: "lefthook-local.toml", Access: AccessRead},
	{Path: ".lefthook-local.yml", Access: AccessRead},
	{Path: ".lefthook-local.yaml", Access: AccessRead},
	{Path: ".lefthook-local.json", Access: AccessRead},
	{Path: ".lefthook-local.jsonc", Access: AccessRead},
	{Path: ".lefthook-local.toml", Access: AccessRead},
	{Path: ".config/lefthook-local.yml", Access: AccessRead},
	{Path: ".config/lefthook-local.yaml", Access: AccessRead},
	{Path: ".config/lefthook-local.json", Access: AccessRead},
	{Path: ".config/lefthook-local.jsonc", Access: AccessRead},
	{Path: ".config/lefthook-local.toml", Access: AccessRead},
	{Path: ".lefthook", Access: AccessRead},
	{Path: ".lefthook-local", Access: AccessRead},
	// More agent tools' project settings that start programs when a
	// person starts the tool there: opencode's MCP servers and plugins,
	// Kiro's MCP servers and agent hooks, Amazon Q Developer's, Roo
	// Code's, Qwen Code's and Continue's MCP servers, Crush's MCP and
	// language servers.
	{Path: "opencode.json", Access: AccessRead},
	{Path: "opencode.jsonc", Access: AccessRead},
	{Path: ".opencode", Access: AccessRead},
	{Path: ".kiro", Access: AccessRead},
	{Path: ".amazonq", Access: AccessRead},
	{Path: ".roo", Access: AccessRead},
	{Path: ".qwen", Access: AccessRead},
	{Path: ".continue", Access: AccessRead},
	{Path: "crush.json", Access: AccessRead},
	{Path: ".crush.json", Access: AccessRead},
	// Cline's hook scripts (.clinerules/hooks/<event>, run on its events;
	// .clinerules itself, a file or a directory, holds rules to read) and
	// its project directory (hooks, plugins), Windsurf's workspace Cascade
	// hooks (.windsurf/hooks.json), Kilo Code's project MCP servers
	// (.kilocode/mcp.json) and, in its opencode-based releases, its
	// config's MCP servers and plugins.
	{Path: ".clinerules/hooks", Access: AccessRead},
	{Path: ".cline", Access: AccessRead},
	{Path: ".windsurf", Access: AccessRead},
	{Path: ".kilocode", Access: AccessRead},
	{Path: ".kilo", Access: AccessRead},
	{Path: "kilo.json", Access: AccessRead},
	{Path: "kilo.jsonc", Access: AccessRead},
	// Zed's project settings: language servers' binaries, external
	// formatters and MCP servers it starts in a worktree the person
	// trusted once (as VS Code's workspace trust, which .vscode is kept
	// read-only despite).
	{Path: ".zed", Access: AccessRead},
	// Helix's workspace config (.helix/languages.toml names language
	// servers' commands), merged once the person trusts the workspace, and
	// GitHub Copilot CLI's repository hooks (.github/hooks/*.json, shell
	// commands it runs on its session's events; the rest of .github, CI
	// workflows, runs elsewhere).
	{Path: ".helix", Access: AccessRead},
	{Path: ".github/hooks", Access: AccessRead},
	// Other version control systems' repository configs: hooks, aliases
	// and extensions that run programs, like .git/config.
	{Path: ".hg/hgrc", Access: AccessRead},
	{Path: ".jj/repo/config.toml", Access: AccessRead},
	// jj's workspace config (jj 0.35 to 0.37; later ones move it out of
	// the workspace and load it from there), and the files naming the
	// repository's and the workspace's config kept outside it (jj 0.38
	// and later).
	{Path: ".jj/workspace-config.toml", Access: AccessRead},
	{Path: ".jj/repo/config-id", Access: AccessRead},
	{Path: ".jj/workspace-config-id", Access: AccessRead},
	{Path: ".sl/config", Access: AccessRead},
	// A share's pointer to the repository it shares (hg share, sl share):
	// with share-safe (Mercurial's default since 6.1) the shared
	// repository's hgrc is read too, so a pointer rewritten to a
	// directory of the command's runs its hooks. hgrc-not-shared is the
	// share's own config then. (jj's pointer, .jj/repo, is a file only in
	// a secondary workspace: the sandbox keeps it read-only where it is
	// one.)
	{Path: ".hg/sharedpath", Access: AccessRead},
	{Path: ".hg/hgrc-not-shared", Access: AccessRead},
	{Path: ".sl/sharedpath", Access: AccessRead},
	{Path: ".gitconfig", Access: AccessRead},
	{Path: ".config/git", Access: AccessRead},
	{Path: ".config/fish", Access: AccessRead},
	{Path: ".bashrc", Access: AccessRead},
	{Path: ".bash_profile", Access: AccessRead},
	{Path: ".bash_login", Access: AccessRead},
	{Path: ".bash_logout", Access: AccessRead},
	{Path: ".profile", Access: AccessRead},
	{Path: ".zshrc", Access: AccessRead},
	{Path: ".zshenv", Access: AccessRead},
	{Path: ".zprofile", Access: AccessRead},
	{Path: ".zlogin", Access: AccessRead},
	{Path: ".zlogout", Access: AccessRead},
	// zsh reads FILE.zwc, a compiled copy, in place of a start-up file
	// it is newer than, and compinit sources its dump (the
	// hundred-and-sixtieth review).
	{Path: ".zshrc.zwc", Access: AccessRead},
	{Path: ".zshenv.zwc", Access: AccessRead},
	{Path: ".zprofile.zwc", Access: AccessRead},
	{Path: ".zlogin.zwc", Access: AccessRead},
	{Path: ".zlogout.zwc", Access: AccessRead},
	{Path: ".zcompdump", Access: AccessRead},
	{Path: ".zcompdump.zwc", Access: AccessRead},
	// Home files other programs run from (the hundred-and-sixtieth
	// review): mvn sources .mavenrc, sensible-editor .selected_editor,
	// xdg-user-dir user-dirs.dirs; less takes LESSOPEN from its lesskey
	// file; the docker CLI runs its plugins from cli-plugins;
	// xdg-open runs the Exec= of the desktop file mimeapps.list names.
	{Path: ".mavenrc", Access: AccessRead},
	{Path: ".selected_editor", Access: AccessRead},
	{Path: ".lesskey", Access: AccessRead},
	{Path: ".config/lesskey", Access: AccessRead},
	{Path: ".docker/cli-plugins", Access: AccessRead},
	{Path: ".config/user-dirs.dirs", Access: AccessRead},
	{Path: ".config/mimeapps.list", Access: AccessRead},
	{Path: ".local/share/applications", Access: AccessRead},
	{Path: ".kshrc", Access: AccessRead},
	{Path: ".cshrc", Access: AccessRead},
	{Path: ".tcshrc", Access: AccessRead},
	{Path: ".login", Access: AccessRead},
	{Path: ".logout", Access: AccessRead},
	{Path: ".inputrc", Access: AccessRead},
	// Sourced by Debian's and Ubuntu's default .bashrc; put first in PATH
	// by their default .profile.
	{Path: ".bash_aliases", Access: AccessRead},
	{Path: ".local/bin", Access: AccessRead},
	// Version managers and toolchains a person's start-up files put first
	// in PATH or source (pyenv's shims and bin, and the interpreters the
	// shims run; rustup's proxies in .cargo/bin and the toolchains they
	// run, .cargo/env; nvm.sh; asdf's and mise's shims; SDKMAN's init):
	// the person's next shell, python3 or cargo ran the agent's program
	// (the hundred-and-sixty-third review). ~/bin and ~/go/bin stay out:
	// a project's own bin and go/bin are common (README).
	{Path: ".pyenv", Access: AccessRead},
	{Path: ".rbenv", Access: AccessRead},
	{Path: ".nodenv", Access: AccessRead},
	{Path: ".goenv", Access: AccessRead},
	{Path: ".jenv", Access: AccessRead},
	{Path: ".nvm", Access: AccessRead},
	{Path: ".asdf", Access: AccessRead},
	{Path: ".sdkman", Access: AccessRead},
	{Path: ".rustup", Access: AccessRead},
	{Path: ".cargo/bin", Access: AccessRead},
	{Path: ".cargo/env", Access: AccessRead},
	{Path: ".cargo/env.fish", Access: AccessRead},
	{Path: ".volta", Access: AccessRead},
	{Path: ".bun/bin", Access: AccessRead},
	{Path: ".deno/bin", Access: AccessRead},
	{Path: ".local/share/mise", Access: AccessRead},
	{Path: ".local/share/pnpm", Access: AccessRead},
	// The same, sourced by the lines other installers add to the start-up
	// files (ghcup, elan, opam, deno, bun, fzf), powerlevel10k's config,
	// oh-my-zsh itself, Fedora's .bashrc.d; Gradle's init scripts (run at
	// every build of any project); terminals' configs that name the shell
	// or run Lua (the hundred-and-sixty-sixth review).
	{Path: ".ghcup", Access: AccessRead},
	{Path: ".elan", Access: AccessRead},
	{Path: ".opam/opam-init", Access: AccessRead},
	{Path: ".deno/env", Access: AccessRead},
	{Path: ".bun/_bun", Access: AccessRead},
	{Path: ".fzf", Access: AccessRead},
	{Path: ".fzf.bash", Access: AccessRead},
	{Path: ".fzf.zsh", Access: AccessRead},
	{Path: ".p10k.zsh", Access: AccessRead},
	{Path: ".oh-my-zsh", Access: AccessRead},
	{Path: ".bashrc.d", Access: AccessRead},
	{Path: ".gradle/init.d", Access: AccessRead},
	{Path: ".gradle/init.gradle", Access: AccessRead},
	{Path: ".gradle/init.gradle.kts", Access: AccessRead},
	{Path: ".config/alacritty", Access: AccessRead},
	{Path: ".alacritty.toml", Access: AccessRead},
	{Path: ".alacritty.yml", Access: AccessRead},
	{Path: ".config/kitty", Access: AccessRead},
	{Path: ".wezterm.lua", Access: AccessRead},
	{Path: ".config/wezterm", Access: AccessRead},
	// Their siblings (the hundred-and-sixty-seventh review): GHC's
	// ghci.conf, SBCL's and xonsh's start-up files, Leiningen's and sbt's
	// global profiles and plugins (every build of any project), Nix's
	// profile bin (first in PATH), and the terminals and multiplexers that
	// start a shell or run their config.
	{Path: ".ghc", Access: AccessRead},
	{Path: ".sbclrc", Access: AccessRead},
	{Path: ".xonshrc", Access: AccessRead},
	{Path: ".config/xonsh", Access: AccessRead},
	{Path: ".config/nushell", Access: AccessRead},
	{Path: ".lein", Access: AccessRead},
	{Path: ".sbt", Access: AccessRead},
	{Path: ".nix-profile", Access: AccessRead},
	{Path: ".hyper.js", Access: AccessRead},
	{Path: ".config/ghostty", Access: AccessRead},
	{Path: ".config/foot", Access: AccessRead},
	{Path: ".config/zellij", Access: AccessRead},
	{Path: ".config/rio", Access: AccessRead},
	{Path: ".config/terminator", Access: AccessRead},
	{Path: ".local/share/konsole", Access: AccessRead},
	{Path: ".erlang", Access: AccessRead},
	// Home files that run a program at the person's next gdb (its early
	// init's shell lines), wget (use_askpass), curl (an output that
	// overwrites .bashrc), git commit in a husky project (husky 9's
	// init.sh, husky 4–8's .huskyrc), bun run (the global bunfig's
	// preload), jupyter and mongosh (the hundred-and-sixty-third review).
	{Path: ".gdbearlyinit", Access: AccessRead},
	{Path: ".wgetrc", Access: AccessRead},
	{Path: ".config/wget", Access: AccessRead},
	{Path: ".curlrc", Access: AccessRead},
	{Path: ".config/.curlrc", Access: AccessRead},
	{Path: ".config/husky", Access: AccessRead},
	{Path: ".huskyrc", Access: AccessRead},
	{Path: ".bunfig.toml", Access: AccessRead},
	{Path: ".jupyter", Access: AccessRead},
	{Path: ".mongoshrc.js", Access: AccessRead},
	{Path: ".mongorc.js", Access: AccessRead},
	// What else a home directory's programs run at the person's next login,
	// shell, editor, debugger or Python start (the hundred-and-forty-second
	// review): systemd user units, the desktop session's autostart and
	// environment, the user site's .pth files and sitecustomize,
	// bash-completion's files, editors' and tools' start-up files, and
	// Claude Code's user config (its MCP servers' commands). Every root
	// gets them: any root may be a person's home (a session started in
	// it), wherever homes lie.
	{Path: ".config/systemd/user", Access: AccessRead},
	{Path: ".config/autostart", Access: AccessRead},
	{Path: ".config/environment.d", Access: AccessRead},
	{Path: ".pam_environment", Access: AccessRead},
	{Path: ".xsessionrc", Access: AccessRead},
	{Path: ".xprofile", Access: AccessRead},
	{Path: ".xinitrc", Access: AccessRead},
	{Path: ".xsession", Access: AccessRead},
	{Path: ".local/lib", Access: AccessRead},
	{Path: ".bash_completion", Access: AccessRead},
	{Path: ".local/share/bash-completion", Access: AccessRead},
	{Path: ".vimrc", Access: AccessRead},
	{Path: ".gvimrc", Access: AccessRead},
	{Path: ".exrc", Access: AccessRead},
	{Path: ".vim", Access: AccessRead},
	{Path: ".config/nvim", Access: AccessRead},
	{Path: ".emacs", Access: AccessRead},
	{Path: ".emacs.d", Access: AccessRead},
	{Path: ".config/emacs", Access: AccessRead},
	{Path: ".config/powershell", Access: AccessRead},
	{Path: ".tmux.conf", Access: AccessRead},
	{Path: ".config/tmux", Access: AccessRead},
	{Path: ".screenrc", Access: AccessRead},
	{Path: ".ipython", Access: AccessRead},
	{Path: ".gdbinit", Access: AccessRead},
	{Path: ".config/gdb", Access: AccessRead},
	{Path: ".lldbinit", Access: AccessRead},
	{Path: ".psqlrc", Access: AccessRead},
	{Path: ".irbrc", Access: AccessRead},
	{Path: ".pryrc", Access: AccessRead},
	{Path: ".claude.json", Access: AccessRead},
	// More of the same under other names (the hundred-and-forty-fourth
	// review): XDG and data-dir forms, per-version files, window
	// managers' and desktop sessions' configs that run programs, the
	// session bus's services, direnv's own library, Mercurial's user
	// config, editors' user settings (tasks, terminals, language servers),
	// a prompt's commands, oh-my-zsh's custom scripts, and other coding
	// agents' user configs (their MCP servers' commands).
	{Path: ".local/share/nvim", Access: AccessRead},
	{Path: ".local/share/vim", Access: AccessRead},
	{Path: ".config/vim", Access: AccessRead},
	{Path: ".emacs.el", Access: AccessRead},
	{Path: ".local/share/systemd/user", Access: AccessRead},
	{Path: ".config/systemd/user.control", Access: AccessRead},
	{Path: ".config/systemd/user.conf", Access: AccessRead},
	{Path: ".config/direnv", Access: AccessRead},
	{Path: ".lldbinit-lldb", Access: AccessRead},
	{Path: ".psqlrc-14", Access: AccessRead},
	{Path: ".psqlrc-15", Access: AccessRead},
	{Path: ".psqlrc-16", Access: AccessRead},
	{Path: ".psqlrc-17", Access: AccessRead},
	{Path: ".psqlrc-18", Access: AccessRead},
	{Path: ".config/irb", Access: AccessRead},
	{Path: ".config/pry", Access: AccessRead},
	{Path: ".hgrc", Access: AccessRead},
	{Path: ".config/hg", Access: AccessRead},
	{Path: ".julia/config", Access: AccessRead},
	{Path: ".sqliterc", Access: AccessRead},
	{Path: ".config/plasma-workspace", Access: AccessRead},
	{Path: ".config/i3", Access: AccessRead},
	{Path: ".config/sway", Access: AccessRead},
	{Path: ".config/hypr", Access: AccessRead},
	{Path: ".local/share/dbus-1", Access: AccessRead},
	{Path: ".config/pipewire", Access: AccessRead},
	{Path: ".config/helix", Access: AccessRead},
	{Path: ".config/zed", Access: AccessRead},
	{Path: ".config/Code/User", Access: AccessRead},
	{Path: ".config/starship.toml", Access: AccessRead},
	{Path: ".config/opencode", Access: AccessRead},
	{Path: ".config/crush", Access: AccessRead},
	{Path: ".codeium", Access: AccessRead},
	{Path: ".copilot", Access: AccessRead},
	{Path: ".config/goose", Access: AccessRead},
	{Path: ".config/amp", Access: AccessRead},
	{Path: ".factory", Access: AccessRead},
	// What a REPL or debugger reads in the directory it starts in too:
	// pdb's .pdbrc, irb's other names, GHCi's .ghci.
	{Path: ".pdbrc", Access: AccessRead},
	{Path: "irb.rc", Access: AccessRead},
	{Path: "_irbrc", Access: AccessRead},
	{Path: ".ghci", Access: AccessRead},
	// IEx's .iex.exs, the OCaml toplevel's and utop's .ocamlinit,
	// Octave's .octaverc, the perl debugger's .perldb and perldb.ini
	// (the hundred-and-fifty-seventh review).
	{Path: ".iex.exs", Access: AccessRead},
	{Path: ".ocamlinit", Access: AccessRead},
	{Path: ".octaverc", Access: AccessRead},
	{Path: ".perldb", Access: AccessRead},
	{Path: "perldb.ini", Access: AccessRead},
	// Git hook managers beside lefthook, pre-commit, prek and hk: Trunk's
	// actions (run by the hooks it installs) and rusty-hook's commands;
	// Eclipse's project builders (an External Tool Builder's launch file
	// runs a program when the person's Eclipse builds the project).
	{Path: ".trunk/trunk.yaml", Access: AccessRead},
	{Path: ".trunk/user.yaml", Access: AccessRead},
	{Path: ".rusty-hook.toml", Access: AccessRead},
	{Path: "rusty-hook.toml", Access: AccessRead},
	{Path: ".project", Access: AccessRead},
	{Path: ".externalToolBuilders", Access: AccessRead},
	// Files that choose the program a tool runs or the options of its
	// runtime, like .tool-versions (the hundred-and-forty-second review):
	// uv's .python-version (an interpreter's path), npm's .npmrc
	// (script-shell, node-options), Bazelisk's .bazeliskrc (where Bazel is
	// downloaded from), Bazel's .bazelrc (startup JVM options), MSBuild's
	// Directory.Build.rsp (a -logger loads a DLL). Not Bazelisk's
	// tools/bazel here: as an item it pinned every link named tools on the
	// way and set aside one a command made; the sandbox keeps it only in a
	// Bazel workspace (sandbox/bazelwrapper.go).
	{Path: ".python-version", Access: AccessRead},
	{Path: ".npmrc", Access: AccessRead},
	{Path: ".bazeliskrc", Access: AccessRead},
	{Path: ".bazelrc", Access: AccessRead},
	{Path: "Directory.Build.rsp", Access: AccessRead},
}

// protectedEntries lists the protected entries of list for every writable
// root of es (devices excluded) and for cwd when it lies strictly inside a
// writable root (every item: a host program reads them where the person
// works, and the person launched the agent there). Entries come in root order, then list
// order; a path already listed is not repeated.
func protectedEntries(list []ProtectedPath, es []FilesystemEntry, cwd string) []FilesystemEntry {
	var out []FilesystemEntry
	seen := map[string]bool{}
	add := func(base string, p ProtectedPath) {
		path := CleanPath(base + "/" + p.Path)
		if seen[path] || path == base {
			return
		}
		seen[path] = true
		out = append(out, FilesystemEntry{Kind: PathProtected, Path: path, Access: p.Access, Provenance: ProvenanceSystem,
			ResolvedPath: path, Reserved: p.Reserved})
	}
	cwdInside := false
	for _, e := range es {
		if e.Access != AccessWrite || e.Kind == PathDevice || e.Kind == PathProtected {
			continue
		}
		if cwd != e.ResolvedPath && PathWithin(cwd, e.ResolvedPath) {
			cwdInside = true
		}
		for _, p := range list {
			add(e.ResolvedPath, p)
		}
	}
	if cwdInside {
		for _, p := range list {
			add(cwd, p)
		}
	}
	return out
}

// aboveRootEntries is the list at each directory between the operator's
// allowed root and the root e lies in (e.Within), as roots-relative keys
// hold there: an item at such a directory that covers the root covers it
// whole (a turn rooted at a project's .vscode, or below its
// .devcontainer, wrote what a turn rooted at the project keeps read-only:
// the hundred-and-sixty-fifth review), and one inside the root is
// protected there too.
// A root given through a symlink is taken where it led (LedTo): a turn
// rooted at top/link -> repo/.vscode, or at a link the agent planted in
// the project, wrote the project's .vscode (the hundred-and-sixty-ninth
// review); the entries are written there, as BindRootLinks writes the
// root's own.
// (BindRoots calls it once Within and LedTo are known.)
func aboveRootEntries(list []ProtectedPath, e FilesystemEntry, seen map[string]bool) (out []FilesystemEntry) {
	root := cmp.Or(e.LedTo, e.ResolvedPath)
	if e.Within == "" || root == e.Within || !PathWithin(root, e.Within) {
		return nil
	}
	for d := path.Dir(root); PathWithin(d, e.Within); d = path.Dir(d) {
		for _, p := range list {
			q := CleanPath(d + "/" + p.Path)
			at := ""
			switch {
			case PathWithin(root, q):
				at = root // the root lies at or below the item
			case PathWithin(q, root):
				at = q
			}
			if at == "" || seen[at+"\x00"+string(p.Access)] {
				continue
			}
			seen[at+"\x00"+string(p.Access)] = true
			out = append(out, FilesystemEntry{Kind: PathProtected, Path: at, Access: p.Access, Provenance: ProvenanceSystem, ResolvedPath: at})
		}
		if d == e.Within || d == "/" {
			break
		}
	}
	return out
}

// IsReopenable reports whether a more specific grant may reopen a subtree of
// the deny entry e ("blocked" deny, "blocked/allowed" write). Protected and
// sensitive entries are never reopened.
func (e *FilesystemEntry) IsReopenable() bool {
	return e.Access == AccessDeny && e.Kind != PathProtected && e.Kind != PathSensitive
}

// IsCarve reports whether e narrows what grants allow (a protected path or a
// deny entry) rather than granting anything.
func (e *FilesystemEntry) IsCarve() bool {
	return e.Kind == PathProtected || e.Kind == PathSensitive || e.Access == AccessDeny
}

// AccessAt is what fs grants at the clean absolute path p: the strongest
// grant covering p that no deny entry shadows (a deny entry shadows a grant
// at p when it covers p and lies at or below the grant: the more specific
// entry wins, and a tie denies), then capped by every protected and
// sensitive entry covering p (a protected entry with write access caps
// nothing: it only pins the path). It is the one definition both the
// decision-time checker and the kernel plan follow (the sandbox applies it
// to canonical paths).
func AccessAt(fs *FilesystemPolicy, p string) Access {
	acc := AccessDeny
	if fs.Unrestricted {
		acc = AccessWrite
	}
	for _, g := range fs.Entries {
		if g.IsCarve() || !PathWithin(p, g.ResolvedPath) || g.Access.rank() <= acc.rank() {
			continue
		}
		if !Shadowed(fs.Entries, g.ResolvedPath, p) {
			acc = g.Access
		}
	}
	for _, c := range fs.Entries {
		if (c.Kind == PathProtected || c.Kind == PathSensitive) && PathWithin(p, c.ResolvedPath) && c.Access.rank() < acc.rank() {
			acc = c.Access
		}
	}
	if acc == AccessWrite && overlaid(fs.Entries, p) {
		acc = AccessRead // the command writes its own copy; the path itself is read
	}
	return acc
}

// overlaid reports whether the most specific root covering p is an overlay
// (a write root nested in it is mounted on top of the overlay and writes
// the host's files again; a write root at the overlay's own path does not:
// as for rules, an overlay wins a tie with write, so that a root the runtime
// names there does not make the host's directory written).
func overlaid(es []FilesystemEntry, p string) bool {
	best := ""
	over := false
	for _, e := range es {
		if e.IsCarve() || e.Access == AccessDeny || !PathWithin(p, e.ResolvedPath) || len(e.ResolvedPath) < len(best) {
			continue
		}
		if len(e.ResolvedPath) > len(best) {
			over = false
		}
		best = e.ResolvedPath
		over = over || (e.Overlay && e.Access == AccessRead)
	}
	return over
}

// Shadowed reports whether a reopenable deny entry of es lies at or below
// grant (a clean path) and covers p.
func Shadowed(es []FilesystemEntry, grant, p string) bool {
	for _, d := range es {
		if d.IsReopenable() && PathWithin(p, d.ResolvedPath) && PathWithin(d.ResolvedPath, grant) {
			return true
		}
	}
	return false
}

// rank orders accesses: deny < read < write.
func (a Access) rank() int {
	switch a {
	case AccessWrite:
		return 2
	case AccessRead:
		return 1
	}
	return 0
}
