package sandbox

import (
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// newLaunchers144: review 142's fix made .python-version, .npmrc,
// .bazelrc and Directory.Build.rsp read-only at any depth (readAtAnyDepth)
// because each chooses the program a tool runs or loads; but
// launcherRefsOf (launcherparse.go) reads none of them, so the program,
// script, rc file or DLL each names inside the project stays writable to
// a file tool and a command, and the person's next uv, npm, bazel or
// dotnet build runs the agent's code. (The .jvmopts, .envrc and Cargo
// config forms of the same thing are kept: the control.)
var newLaunchers144 = []struct{ name, file, data, target, why string }{
	// uv's .python-version holds any Python request, a path too.
	{"pythonVersionPath", ".python-version", "tools/py/bin/python3\n", "tools/py/bin/python3", "uv runs it as the project's interpreter"},
	// npm's script-shell runs every npm run script; node-options reach
	// every node npm starts.
	{"npmrcScriptShell", ".npmrc", "script-shell=./scripts/shell.sh\n", "scripts/shell.sh", "npm run runs each script through it"},
	{"npmrcNodeOptions", ".npmrc", "node-options=--require ./scripts/preload.js\n", "scripts/preload.js", "every node npm starts loads it"},
	// Bazel's rc imports (the common try-import %workspace%/user.bazelrc)
	// and a startup JVM agent.
	{"bazelrcTryImport", ".bazelrc", "try-import %workspace%/user.bazelrc\n", "user.bazelrc", "bazel reads its startup options (host_jvm_args)"},
	{"bazelrcJavaagent", ".bazelrc", "startup --host_jvm_args=-javaagent:tools/agent.jar\n", "tools/agent.jar", "bazel's server JVM loads it"},
	// MSBuild's response file: a logger's assembly is loaded into every
	// build.
	{"directoryBuildRspLogger", "Directory.Build.rsp", "-logger:FileLogger,tools/Logger.dll\n", "tools/Logger.dll", "msbuild loads the assembly"},
}

// TestAttack144_NewLauncherRefsWritable: the target of each of the above
// is written by a file tool and by a command, and stays after the check.
func TestAttack144_NewLauncherRefsWritable(t *testing.T) {
	for _, c := range newLaunchers144 {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{c.file: c.data, c.target: "original\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, c.file, domain.AccessWrite, false); err == nil {
				t.Fatalf("premise: %s itself is writable", c.file)
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, c.target, domain.AccessWrite, false); err == nil {
				t.Errorf("ESCAPED (decision): a write of %s, which the protected %s %q names (%s), was allowed", c.target, c.file, strings.TrimSpace(c.data), c.why)
			}
			r := sh(t, s, "echo 'touch /tmp/pwned144' >> "+c.target+" && echo wrote")
			if strings.Contains(string(r.Stdout), "wrote") && strings.Contains(readFile(t, filepath.Join(f.ws, c.target)), "pwned144") {
				t.Errorf("ESCAPED (command): a command wrote %s, which the protected %s %q names (%s), and it stayed after the check", c.target, c.file, strings.TrimSpace(c.data), c.why)
			}
		})
	}
}

// TestAttack144_NewLauncherRefsWritableControl: the same kind of target
// named by a launcher file the parsers read (.jvmopts's argument file,
// .envrc's source, Cargo's rustc-wrapper, mise's hook)
// is refused to a file tool and to a command; an ordinary file is written.
func TestAttack144_NewLauncherRefsWritableControl(t *testing.T) {
	for _, c := range []struct{ name, file, data, target string }{
		{"jvmoptsArgFile", ".jvmopts", "@tools/more.opts\n", "tools/more.opts"},
		{"envrcSource", ".envrc", "source scripts/shell.sh\n", "scripts/shell.sh"},
		{"cargoRustcWrapper", ".cargo/config.toml", "[build]\nrustc-wrapper = \"tools/py/bin/python3\"\n", "tools/py/bin/python3"},
		{"miseHook", "mise.toml", "[hooks]\nenter = \"./scripts/preload.js\"\n", "scripts/preload.js"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{c.file: c.data, c.target: "original\n", "notes/other.txt": "o\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, c.target, domain.AccessWrite, false); err == nil {
				t.Errorf("control: a write of %s, named by %s %q, was allowed", c.target, c.file, c.data)
			}
			r := sh(t, s, "echo 'touch /tmp/pwned144' >> "+c.target+" && echo wrote")
			if strings.Contains(string(r.Stdout), "wrote") && strings.Contains(readFile(t, filepath.Join(f.ws, c.target)), "pwned144") {
				t.Errorf("control: a command wrote %s, named by %s %q", c.target, c.file, c.data)
			}
			r = sh(t, s, "echo x >> notes/other.txt && echo wrote")
			if !strings.Contains(string(r.Stdout), "wrote") {
				t.Errorf("control: a command could not write notes/other.txt: %s", r.Stderr)
			}
		})
	}
}
