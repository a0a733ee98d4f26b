package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// mise143: mise.toml forms in mise's own documentation whose target the
// agent may write, which miseRefs (launcherparse.go) reads as a literal
// path or not at all: mise.toml is read-only to the agent, what it has
// the person's shell source or put first in PATH is not.
var mise143 = []struct{ name, data, target, why string }{
	// Templates: mise renders its values with tera; {{config_root}} is
	// the project's directory (the cookbook's `_.path = ["{{config_root}}/bin"]`).
	// The ref is kept as the literal, missing path
	// "<ws>/{{config_root}}/tools/bin".
	{"pathConfigRoot", "[env]\n_.path = [\"{{config_root}}/tools/bin\"]\n", "tools/bin/git", "mise puts it first in the person's PATH at every prompt"},
	{"sourceConfigRootSpaced", "[env]\n_.source = \"{{ config_root }}/scripts/env.sh\"\n", "scripts/env.sh", "mise's hook-env sources it at every prompt"},
	// _.source is a glob (xx::file::glob): every match is sourced. The
	// literal "scripts/*.sh" is watched as a missing file; the files it
	// matches are not kept.
	{"sourceGlob", "[env]\n_.source = \"scripts/*.sh\"\n", "scripts/env.sh", "mise's hook-env sources every match at every prompt"},
	// A hook is a shell command: the script behind `bash` is not read
	// (only a first word holding a '/' is).
	// An array of tables (mise's mixed form, `_.file = [".env", { path =
	// ".secrets.yaml", redact = true }]`): each() takes only the strings
	// of an array, the table's path is dropped.
	{"sourceArrayOfTables", "[env]\n_.source = [{ path = \"scripts/env.sh\", tools = true }]\n", "scripts/env.sh", "mise's hook-env sources it at every prompt"},
	{"hookBash", "[hooks]\nenter = \"bash ./scripts/enter.sh\"\n", "scripts/enter.sh", "mise runs it on entering the directory"},
}

// TestAttack143_MiseFormsTargetWritable: the target of each form above is
// written by a file tool and by a command.
func TestAttack143_MiseFormsTargetWritable(t *testing.T) {
	for _, c := range mise143 {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{"mise.toml": c.data, c.target: "# original\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, "mise.toml", domain.AccessWrite, false); err == nil {
				t.Fatalf("premise: mise.toml itself is writable")
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, c.target, domain.AccessWrite, false); err == nil {
				t.Errorf("ESCAPED (decision): a write of %s, which the protected mise.toml %q names (%s), was allowed", c.target, strings.TrimSpace(c.data), c.why)
			}
			r := sh(t, s, "echo 'touch /tmp/pwned143' >> "+c.target+" && echo wrote")
			if strings.Contains(string(r.Stdout), "wrote") {
				t.Errorf("ESCAPED (command): a command wrote %s, which the protected mise.toml %q names (%s)", c.target, strings.TrimSpace(c.data), c.why)
			}
		})
	}
}

// TestAttack143_MiseFormsTargetWritableControl: the same targets written
// as literal relative paths (as miseRefs reads them) are refused to a file
// tool and to a command; an ordinary file beside them is written.
func TestAttack143_MiseFormsTargetWritableControl(t *testing.T) {
	for _, c := range []struct{ name, data, target string }{
		{"pathLiteral", "[env]\n_.path = [\"./tools/bin\"]\n", "tools/bin/git"},
		{"sourceLiteral", "[env]\n_.source = \"./scripts/env.sh\"\n", "scripts/env.sh"},
		{"sourceTable", "[env]\n_.source = { path = \"scripts/env.sh\", tools = true }\n", "scripts/env.sh"},
		{"hookPath", "[hooks]\nenter = \"./scripts/enter.sh\"\n", "scripts/enter.sh"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{"mise.toml": c.data, c.target: "# original\n", "notes/other.txt": "o\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, c.target, domain.AccessWrite, false); err == nil {
				t.Errorf("control: a write of %s, named by mise.toml %q, was allowed", c.target, c.data)
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, "notes/other.txt", domain.AccessWrite, false); err != nil {
				t.Errorf("control: a write of notes/other.txt: %v", err)
			}
			r := sh(t, s, "echo 'touch /tmp/pwned143' >> "+c.target+" && echo wrote")
			if strings.Contains(string(r.Stdout), "wrote") {
				t.Errorf("control: a command wrote %s, named by mise.toml %q", c.target, c.data)
			}
			r = sh(t, s, "echo x >> notes/other.txt && echo wrote")
			if !strings.Contains(string(r.Stdout), "wrote") {
				t.Errorf("control: a command could not write notes/other.txt: %s", r.Stderr)
			}
		})
	}
}
