package sandbox

import (
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// launcher146: forms of a protected launcher file that name a file of the
// project by a bare name (no "/", no leading "."), which the tool takes
// from the project's directory: envrcRefs reads a path from the words of
// "source", ".", "source_env" and "dotenv" only as their first argument,
// and from every other word only through pathTokens (launcherparse.go),
// which takes a word for a path only when it holds a "/" or starts with
// ".". So a program the person's .envrc runs by its bare name (direnv runs
// .envrc in its own directory: `bash setup.sh` runs ./setup.sh), a file
// sourced behind `builtin` or `command`, or read by `$(cat env.sh)`, a
// quoted one with a space (`source "my env.sh"`: envrcRefs splits the
// words on blanks before it takes the quotes off, and keeps "my"), and
// the logger assembly Directory.Build.rsp gives MSBuild by a bare file name
// (`-logger:L,Logger.dll`, loaded from the project's directory by every
// `dotnet build` there), and a cargo [env] value with relative = true
// (a path from the project's directory whatever it holds; cargoConfigRefs
// drops every value without a "/") stay writable to the agent's commands and file
// tools, as does Maven's local repository given by a bare name in
// .mvn/maven.config (-Dmaven.repo.local=m2repo: the plugin jars the
// person's next mvn loads); the person's next cd into the directory (or build) runs the
// agent's code. Each has an honest form the parser reads
// (TestAttack146_LauncherBareNameControl).
var launcher146 = []struct{ name, file, data, target, why string }{
	{"envrcBashBare", ".envrc", "bash setup.sh\n", "setup.sh", "direnv runs it on entering"},
	{"envrcBuiltinSource", ".envrc", "builtin source env.sh\n", "env.sh", "sourced by the person's shell on entering"},
	{"envrcCommandDot", ".envrc", "command . env.sh\n", "env.sh", "sourced by the person's shell on entering"},
	// A quoted path with a space: the words are split on blanks before
	// the quotes are taken off, and "my" is kept, not "my env.sh".
	{"envrcSourceQuotedSpace", ".envrc", "source \"my env.sh\"\n", "my env.sh", "sourced by the person's shell on entering"},
	{"envrcEvalCat", ".envrc", "eval \"$(cat env.sh)\"\n", "env.sh", "evaluated by the person's shell on entering"},
	{"rspLoggerBare", "Directory.Build.rsp", "-logger:BuildLogger,BuildLogger.dll\n", "BuildLogger.dll", "loaded by every dotnet build in the directory"},
	// Maven's local repository, where it loads its plugins' and
	// extensions' jars from, given by a bare name in .mvn/maven.config
	// (jvmOptionRefs reads a -D property's value through pathTokens).
	{"mavenRepoLocalBare", ".mvn/maven.config", "-Dmaven.repo.local=m2repo\n", "m2repo/org/apache/maven/plugins/maven-clean-plugin/3.2.0/maven-clean-plugin-3.2.0.jar", "a plugin jar the person's next mvn there loads"},
	// Cargo's [env] with relative = true makes the value a path from the
	// directory holding .cargo, slash or not; cargoConfigRefs drops every
	// value without a "/" (as a program looked up in PATH). CC is the C
	// compiler the cc crate's build scripts run.
	{"cargoEnvRelativeBare", ".cargo/config.toml", "[env]\nCC = { value = \"zcc\", relative = true }\n", "zcc", "run as the C compiler by every build script of a cargo build there"},
}

// TestAttack146_LauncherBareNameWritable: the target of each form above is
// written by a file tool and by a command, and stays after the check.
func TestAttack146_LauncherBareNameWritable(t *testing.T) {
	for _, c := range launcher146 {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{c.file: c.data, c.target: "# original\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, c.file, domain.AccessWrite, false); err == nil {
				t.Fatalf("premise: %s itself is writable", c.file)
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, c.target, domain.AccessWrite, false); err == nil {
				t.Errorf("ESCAPED (decision): a write of %s, which the protected %s %q names (%s), was allowed", c.target, c.file, strings.TrimSpace(c.data), c.why)
			}
			r := sh(t, s, "echo 'touch /tmp/pwned146' >> '"+c.target+"' && echo wrote")
			if strings.Contains(string(r.Stdout), "wrote") && exists(filepath.Join(f.ws, c.target)) {
				t.Errorf("ESCAPED (command): a command wrote %s, which the protected %s %q names (%s), and it stayed after the check", c.target, c.file, strings.TrimSpace(c.data), c.why)
			}
		})
	}
}

// TestAttack146_LauncherBareNameControl: the same targets named in a form
// the parser reads (a "./" path, a plain source) stay read-only to a file
// tool and a command, while an ordinary file beside them is written.
func TestAttack146_LauncherBareNameControl(t *testing.T) {
	for _, c := range []struct{ name, file, data, target string }{
		{"envrcBashDotSlash", ".envrc", "bash ./setup.sh\n", "setup.sh"},
		{"envrcSource", ".envrc", "source env.sh\n", "env.sh"},
		{"envrcSourceQuoted", ".envrc", "source \"my_env.sh\"\n", "my_env.sh"},
		{"rspLoggerPath", "Directory.Build.rsp", "-logger:BuildLogger,./BuildLogger.dll\n", "BuildLogger.dll"},
		{"mavenRepoLocalPath", ".mvn/maven.config", "-Dmaven.repo.local=./m2repo\n", "m2repo/org/apache/maven/plugins/maven-clean-plugin/3.2.0/maven-clean-plugin-3.2.0.jar"},
		{"cargoEnvRelativePath", ".cargo/config.toml", "[env]\nCC = { value = \"tools/zcc\", relative = true }\n", "tools/zcc"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{c.file: c.data, c.target: "# original\n", "other.sh": "o\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, c.target, domain.AccessWrite, false); err == nil {
				t.Errorf("control: a write of %s, named by %s %q, was allowed", c.target, c.file, c.data)
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, "other.sh", domain.AccessWrite, false); err != nil {
				t.Errorf("control: a write of other.sh: %v", err)
			}
			r := sh(t, s, "echo 'touch /tmp/pwned146' >> "+c.target+" && echo wrote")
			if strings.Contains(string(r.Stdout), "wrote") {
				t.Errorf("control: a command wrote %s, named by %s %q", c.target, c.file, c.data)
			}
			r = sh(t, s, "echo x >> other.sh && echo wrote")
			if !strings.Contains(string(r.Stdout), "wrote") {
				t.Errorf("control: a command could not write other.sh: %s", r.Stderr)
			}
		})
	}
}
