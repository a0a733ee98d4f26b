package sandbox

import (
	"testing"

	"turnstile/domain"
)

// sourced140: protected files whose tool runs a script they name in the
// workspace, each in the layout its tool documents, that
// protectLauncherRefs does not read (launcherRefsOf knows only the
// hundred-and-thirty-ninth review's formats):
var sourced140 = []struct{ name, file, data, target, why string }{
	// renv's own layout, in every renv project: .Rprofile holds
	// source("renv/activate.R"); R and Rscript started in the project
	// run it. .Rprofile is protected because R sources it.
	{"rprofileRenv", ".Rprofile", "source(\"renv/activate.R\")\n", "renv/activate.R", "R and Rscript source it at every start"},
	// direnv: .envrc's `source_env FILE` (and `source FILE`) evaluates
	// FILE in the person's shell at every cd into the directory; `direnv
	// allow` trusts .envrc's content, not the files it sources.
	{"envrcSourceEnv", ".envrc", "source_env scripts/envrc.local\n", "scripts/envrc.local", "direnv evaluates it in the person's shell"},
	{"envrcSource", ".envrc", "source ./scripts/dev-env.sh\nuse nix\n", "scripts/dev-env.sh", "direnv evaluates it in the person's shell"},
	// mise: [env] _.source runs the script (bash) to take its
	// environment, at every prompt of a shell mise activates; [hooks]
	// enter runs a command on entering the directory.
	{"miseEnvSource", "mise.toml", "[env]\n_.source = \"./scripts/env.sh\"\n", "scripts/env.sh", "mise's hook-env sources it at every prompt"},
	{"miseHookEnter", "mise.toml", "[hooks]\nenter = \"./scripts/enter.sh\"\n", "scripts/enter.sh", "mise runs it on entering the directory"},
	// mise reads a tool's version "path:DIR" in mise.toml as in
	// .tool-versions (whose path: is read).
	{"miseToolPath", "mise.toml", "[tools]\npython = \"path:./tools/py\"\n", "tools/py/bin/python", "mise puts DIR/bin first in PATH"},
}

// TestAttack140_SourcedScriptWritable: each file above is read-only to
// the agent (a write of it is refused) but the script it has the
// person's tool run is written by a file tool: the person's next R, cd or
// prompt in the project runs the agent's code. Control
// (TestAttack140_SourcedScriptWritableControl): the same scripts named by
// a format launcherRefsOf reads (.Renviron's R_PROFILE_USER,
// .tool-versions's path:) are refused.
func TestAttack140_SourcedScriptWritable(t *testing.T) {
	for _, c := range sourced140 {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{c.file: c.data, c.target: "# original\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, c.file, domain.AccessWrite, false); err == nil {
				t.Fatalf("premise: %s itself is writable", c.file)
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, c.target, domain.AccessWrite, false); err == nil {
				t.Errorf("ESCAPED (decision): a write of %s, which the protected %s names (%s), was allowed", c.target, c.file, c.why)
			}
		})
	}
}

func TestAttack140_SourcedScriptWritableControl(t *testing.T) {
	for _, c := range []struct{ name, file, data, target string }{
		{"renvioronProfile", ".Renviron", "R_PROFILE_USER=renv/activate.R\n", "renv/activate.R"},
		{"toolVersionsPath", ".tool-versions", "python path:./tools/py\n", "tools/py/bin/python"},
		{"toolVersionsScripts", ".tool-versions", "direnv path:./scripts\n", "scripts/env.sh"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{c.file: c.data, c.target: "# original\n", "notes/other.txt": "o\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, c.target, domain.AccessWrite, false); err == nil {
				t.Errorf("control: a write of %s, named by %s, was allowed", c.target, c.file)
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, "notes/other.txt", domain.AccessWrite, false); err != nil {
				t.Errorf("control: a write of notes/other.txt: %v", err)
			}
		})
	}
}
