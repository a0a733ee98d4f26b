package sandbox

import (
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// launcher144: forms of the protected .envrc and mise.toml, each the
// person's direnv or mise runs on entering the directory, whose target the
// agent may write: envrcRefs and miseRefs (launcherparse.go) read no path
// from them, or launcherRef (launcherrefs.go) keeps only what a pattern
// matches now. Each has an honest form the parser reads
// (TestAttack144_LauncherFormsTargetWritableControl).
var launcher144 = []struct{ name, file, data, target, why string }{
	// (The review's cases of a pattern whose directory is the project's,
	// "*.sh" and "*/env.sh", are left: only the files such a pattern
	// matches now are kept, and a new match is made freely; keeping the
	// project's directory read-only would stop every write. Named in the
	// closing note.)
	// Variables other than PATH that make the person's programs load
	// code from the project: Python's sys.path (a sitecustomize.py there
	// runs in every python started in the directory), node's --require,
	// git's global config (core.fsmonitor at every git status).
	{"envrcExportPythonpath", ".envrc", "export PYTHONPATH=lib\n", "lib/sitecustomize.py", "every python the person starts there imports it"},
	{"envrcNodeOptions", ".envrc", "export NODE_OPTIONS=\"--require ./scripts/hook.js\"\n", "scripts/hook.js", "every node the person starts there runs it"},
	{"envrcGitConfigGlobal", ".envrc", "export GIT_CONFIG_GLOBAL=$PWD/.gitconfig.local\n", ".gitconfig.local", "the person's git reads it as the global config (core.fsmonitor)"},
	// PATH from a command substitution: direnv runs .envrc in its
	// directory, $(pwd) is it.
	{"envrcPathPwdSubst", ".envrc", "export PATH=$(pwd)/bin:$PATH\n", "bin/git", "first in the person's PATH"},
	// The common loop over a directory of snippets.
	{"envrcForSource", ".envrc", "for f in .envrc.d/*.sh; do source \"$f\"; done\n", ".envrc.d/zz.sh", "sourced by the person's shell on entering"},
	// A line continued.
	{"envrcContinued", ".envrc", "source \\\n  scripts/env.sh\n", "scripts/env.sh", "sourced by the person's shell on entering"},
	// An env file read into the environment by hand (as dotenv).
	{"envrcExportXargs", ".envrc", "export $(grep -v '^#' .env.local | xargs)\n", ".env.local", "read into the person's environment (PATH, LD_PRELOAD)"},
	// direnv's use nix / use flake: nix-shell runs shell.nix's shellHook
	// (flake.nix's devShell's) in the person's shell on entering; direnv
	// watches the file and reloads when it changes.
	{"envrcUseNix", ".envrc", "use nix\n", "shell.nix", "its shellHook runs on entering"},
	{"envrcUseFlake", ".envrc", "use flake\n", "flake.nix", "its devShell's shellHook runs on entering"},
	// direnv's use devbox / use devenv (their own direnv integrations):
	// devbox.json's shell.init_hook and devenv.nix's enterShell run in the
	// person's shell on entering.
	{"envrcUseDevbox", ".envrc", "eval \"$(devbox generate direnv --print-envrc)\"\n", "devbox.json", "its shell.init_hook runs on entering"},
	{"envrcUseDevenv", ".envrc", "use devenv\n", "devenv.nix", "its enterShell runs on entering"},
}

// TestAttack144_LauncherFormsTargetWritable: the target of each form above
// is written by a file tool and by a command, and stays after the check.
func TestAttack144_LauncherFormsTargetWritable(t *testing.T) {
	for _, c := range launcher144 {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			files := map[string]string{c.file: c.data}
			switch c.name {
			case "miseSourceGlobAtRoot":
				files["env.sh"] = "# original\n"
			case "miseSourceGlobFirstDir":
				files["a/env.sh"] = "# original\n"
			}
			mkfiles(t, f.ws, files)
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, c.file, domain.AccessWrite, false); err == nil {
				t.Fatalf("premise: %s itself is writable", c.file)
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, c.target, domain.AccessWrite, false); err == nil {
				t.Errorf("ESCAPED (decision): a write of %s, which the protected %s %q names (%s), was allowed", c.target, c.file, strings.TrimSpace(c.data), c.why)
			}
			r := sh(t, s, "mkdir -p "+filepath.Dir(c.target)+" && echo 'touch /tmp/pwned144' >> "+c.target+" && echo wrote")
			if strings.Contains(string(r.Stdout), "wrote") && exists(filepath.Join(f.ws, c.target)) {
				t.Errorf("ESCAPED (command): a command wrote %s, which the protected %s %q names (%s), and it stayed after the check", c.target, c.file, strings.TrimSpace(c.data), c.why)
			}
		})
	}
}

// TestAttack144_LauncherFormsTargetWritableControl: the honest form of
// each (a literal path, path_add, $PWD, a plain source) keeps the same
// target from a file tool and a command; an ordinary file is written.
func TestAttack144_LauncherFormsTargetWritableControl(t *testing.T) {
	for _, c := range []struct{ name, file, data, target string }{
		{"miseSourceGlobInDir", "mise.toml", "[env]\n_.source = \"scripts/*.sh\"\n", "scripts/zz-new.sh"},
		{"miseSourceLiteral", "mise.toml", "[env]\n_.source = \"./newdir/env.sh\"\n", "newdir/env.sh"},
		{"envrcPathAddPythonpath", ".envrc", "path_add PYTHONPATH lib\n", "lib/sitecustomize.py"},
		{"envrcPathPWD", ".envrc", "export PATH=$PWD/bin:$PATH\n", "bin/git"},
		{"envrcSourceLiteral", ".envrc", "source .envrc.d/zz.sh\n", ".envrc.d/zz.sh"},
		{"envrcSourceOneLine", ".envrc", "source scripts/env.sh\n", "scripts/env.sh"},
		{"envrcDotenv", ".envrc", "dotenv .env.local\n", ".env.local"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			files := map[string]string{c.file: c.data, "notes/other.txt": "o\n"}
			if c.name == "miseSourceGlobInDir" {
				files["scripts/env.sh"] = "# original\n"
			}
			mkfiles(t, f.ws, files)
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, c.target, domain.AccessWrite, false); err == nil {
				t.Errorf("control: a write of %s, named by %s %q, was allowed", c.target, c.file, c.data)
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, "notes/other.txt", domain.AccessWrite, false); err != nil {
				t.Errorf("control: a write of notes/other.txt: %v", err)
			}
			r := sh(t, s, "mkdir -p "+filepath.Dir(c.target)+" ; echo 'touch /tmp/pwned144' >> "+c.target+" && echo wrote")
			if strings.Contains(string(r.Stdout), "wrote") && exists(filepath.Join(f.ws, c.target)) {
				t.Errorf("control: a command wrote %s, named by %s %q", c.target, c.file, c.data)
			}
			r = sh(t, s, "echo x >> notes/other.txt && echo wrote")
			if !strings.Contains(string(r.Stdout), "wrote") {
				t.Errorf("control: a command could not write notes/other.txt: %s", r.Stderr)
			}
		})
	}
}
