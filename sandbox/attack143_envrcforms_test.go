package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// envrc143: .envrc forms, each in use in the wild and each evaluated by
// direnv in the person's shell at every cd into the directory (and at
// every prompt once a watched file changed), whose target the agent may
// write: envrcRefs (launcherparse.go) reads only the first argument of a
// command that starts a ';', '&' or '|' separated field.
var envrc143 = []struct{ name, data, target, why string }{
	// direnv's stdlib PATH_add takes several directories
	// (`PATH_add() { path_add PATH "$@"; }`): each is put first in PATH.
	// Only the first is kept read-only: the agent plants tools/bin/ls,
	// tools/bin/git, and the person's shell runs them after a cd.
	{"pathAddSecond", "PATH_add bin tools/bin\n", "tools/bin/git", "PATH_add puts it first in the person's PATH"},
	// path_add VAR DIR... likewise.
	{"pathAddVarSecond", "path_add PATH bin scripts\n", "scripts/git", "path_add puts it first in the person's PATH"},
	// direnv's stdlib load_prefix DIR puts DIR/bin first in PATH (and
	// DIR/lib in LD_LIBRARY_PATH): not read at all.
	{"loadPrefix", "load_prefix tools\n", "tools/bin/git", "load_prefix puts DIR/bin first in the person's PATH"},
	// A bare dotenv (and dotenv_if_exists) loads .env (direnv's stdlib:
	// `dotenv [PATH]`, PATH defaulting to .env) into the person's shell:
	// LD_PRELOAD, NODE_OPTIONS=--require, PATH. The parser wants an
	// argument.
	{"dotenvBare", "dotenv\n", ".env", "direnv loads it into the person's shell"},
	{"dotenvIfExistsBare", "dotenv_if_exists\n", ".env", "direnv loads it into the person's shell"},
	// The one-line conditional of direnv's own wiki: `then` starts the
	// field after the ';', so the `source` behind it is not seen.
	{"ifThenSource", "if [ -f .envrc.local ]; then source .envrc.local; fi\n", ".envrc.local", "direnv sources it in the person's shell"},
	{"ifThenSourceEnv", "if has nix; then source_env scripts/nix.envrc; fi\n", "scripts/nix.envrc", "direnv sources it in the person's shell"},
}

// TestAttack143_EnvrcFormsTargetWritable: the .envrc above is read-only
// to the agent (a write of it is refused) but what it has direnv source or
// put in PATH is written by a file tool: the person's next cd into the
// project runs the agent's code.
func TestAttack143_EnvrcFormsTargetWritable(t *testing.T) {
	for _, c := range envrc143 {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{".envrc": c.data, c.target: "# original\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, ".envrc", domain.AccessWrite, false); err == nil {
				t.Fatalf("premise: .envrc itself is writable")
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, c.target, domain.AccessWrite, false); err == nil {
				t.Errorf("ESCAPED (decision): a write of %s, which the protected .envrc %q names (%s), was allowed", c.target, strings.TrimSpace(c.data), c.why)
			}
			r := sh(t, s, "echo 'touch /tmp/pwned143' >> "+c.target+" && echo wrote")
			if strings.Contains(string(r.Stdout), "wrote") {
				t.Errorf("ESCAPED (command): a command wrote %s, which the protected .envrc %q names (%s)", c.target, strings.TrimSpace(c.data), c.why)
			}
		})
	}
}

// TestAttack143_EnvrcFormsTargetWritableControl: the same targets named in
// the forms envrcRefs reads (the first argument of PATH_add, a `source`
// that starts its line) are refused to a file tool and to a command, while
// an ordinary file beside them is written.
func TestAttack143_EnvrcFormsTargetWritableControl(t *testing.T) {
	for _, c := range []struct{ name, data, target string }{
		{"pathAddFirst", "PATH_add tools/bin\n", "tools/bin/git"},
		{"pathAddVarFirst", "path_add PATH scripts\n", "scripts/git"},
		{"ifSourceMultiline", "if [ -f .envrc.local ]; then\n  source .envrc.local\nfi\n", ".envrc.local"},
		{"sourceEnv", "source_env scripts/nix.envrc\n", "scripts/nix.envrc"},
		{"dotenvNamed", "dotenv .env\n", ".env"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{".envrc": c.data, c.target: "# original\n", "notes/other.txt": "o\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, c.target, domain.AccessWrite, false); err == nil {
				t.Errorf("control: a write of %s, named by .envrc %q, was allowed", c.target, c.data)
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, "notes/other.txt", domain.AccessWrite, false); err != nil {
				t.Errorf("control: a write of notes/other.txt: %v", err)
			}
			r := sh(t, s, "echo 'touch /tmp/pwned143' >> "+c.target+" && echo wrote")
			if strings.Contains(string(r.Stdout), "wrote") {
				t.Errorf("control: a command wrote %s, named by .envrc %q", c.target, c.data)
			}
			r = sh(t, s, "echo x >> notes/other.txt && echo wrote")
			if !strings.Contains(string(r.Stdout), "wrote") {
				t.Errorf("control: a command could not write notes/other.txt: %s", r.Stderr)
			}
		})
	}
}
