package sandbox

import (
	"testing"

	"turnstile/domain"
)

// launcherForms141: protected launcher files naming, in forms their
// tools document, a program or a directory of programs in the workspace
// that the person's tool runs, which launcherRefsOf does not read. Each
// is the same class as one it reads (mise's [tools] "path:DIR" puts
// DIR/bin first in PATH and is read; Cargo's -C linker=PATH is read).
var launcherForms141 = []struct{ name, file, data, target string }{
	// mise: [env] _.path prepends DIRs to PATH in every shell mise
	// activates there (mise's documented form), _.file loads a dotenv
	// file (LD_PRELOAD=... in it: as .envrc's dotenv, which is read).
	{"misePath", "mise.toml", "[env]\n_.path = [\"./tools/bin\"]\n", "tools/bin/git"},
	{"misePathString", "mise.toml", "[env]\n_.path = \"./tools/bin\"\n", "tools/bin/git"},
	{"miseFile", "mise.toml", "[env]\n_.file = \".env.local\"\n", ".env.local"},
	// direnv's stdlib: PATH_add DIR puts DIR first in the person's PATH
	// at every cd into the project.
	{"envrcPathAdd", ".envrc", "PATH_add tools/bin\n", "tools/bin/git"},
	{"envrcPathAddLower", ".envrc", "path_add PATH tools/bin\n", "tools/bin/git"},
	// Cargo: rustc's long form of -C (getopts takes --codegen=VALUE),
	// and gcc's -B (where cc finds the ld it runs: mold's documented
	// set-up, link-arg=-B/path/to/mold/libexec) passed as a link-arg.
	{"cargoCodegenEq", ".cargo/config.toml", "[build]\nrustflags = [\"--codegen=linker=tools/cc.sh\"]\n", "tools/cc.sh"},
	{"cargoLinkArgB", ".cargo/config.toml", "[build]\nrustflags = [\"-C\", \"link-arg=-Btools/mold\"]\n", "tools/mold/ld"},
}

// TestAttack141_LauncherPathForms: each file above is read-only to the
// agent, but what it names stays writable to a file tool. Control
// (TestAttack141_LauncherPathFormsControl): mise's [tools] "path:DIR",
// .envrc's source and Cargo's -Clinker= keep theirs read-only.
func TestAttack141_LauncherPathForms(t *testing.T) {
	for _, c := range launcherForms141 {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{c.file: c.data, c.target: "#!/bin/sh\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, c.file, domain.AccessWrite, false); err == nil {
				t.Fatalf("premise: %s itself is writable", c.file)
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, "src/main.go", domain.AccessWrite, false); err != nil {
				t.Fatalf("premise: src/main.go: %v", err)
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, c.target, domain.AccessWrite, false); err == nil {
				t.Errorf("ESCAPED (decision): a write of %s, which %s %q names, was allowed", c.target, c.file, c.data)
			}
		})
	}
}

func TestAttack141_LauncherPathFormsControl(t *testing.T) {
	for _, c := range []struct{ name, file, data, target string }{
		{"miseToolPath", "mise.toml", "[tools]\npython = \"path:./tools\"\n", "tools/bin/git"},
		{"envrcSource", ".envrc", "source tools/bin/git\n", "tools/bin/git"},
		{"cargoLinker", ".cargo/config.toml", "[build]\nrustflags = [\"-Clinker=tools/cc.sh\"]\n", "tools/cc.sh"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{c.file: c.data, c.target: "#!/bin/sh\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, c.target, domain.AccessWrite, false); err == nil {
				t.Errorf("control: a write of %s, which %s names, was allowed", c.target, c.file)
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, "src/main.go", domain.AccessWrite, false); err != nil {
				t.Errorf("control: src/main.go: %v", err)
			}
		})
	}
}
