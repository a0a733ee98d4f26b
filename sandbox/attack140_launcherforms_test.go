package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// launcherForms140 are launcher files, protected at the workspace root
// (readAtAnyDepth), each naming a script, jar, file of options or program
// inside the workspace in a form the real tool honours and
// launcherRefsOf does not read. The target stays writable: a file tool
// rewrites it, and the person's next yarn, mvn, dotnet or cargo there runs
// what the agent wrote.
var launcherForms140 = []struct {
	name, file, data, target, why string
}{
	// YAML (yarn parses .yarnrc.yml with js-yaml): a plain scalar on the
	// line after its key is the key's value.
	{"yarnPathNextLine", ".yarnrc.yml", "nodeLinker: pnp\nyarnPath:\n  .yarn/releases/yarn-4.5.0.cjs\n", ".yarn/releases/yarn-4.5.0.cjs", "node runs yarnPath for every yarn"},
	// A folded block scalar.
	{"yarnPathFolded", ".yarnrc.yml", "yarnPath: >-\n  .yarn/releases/yarn-4.5.0.cjs\n", ".yarn/releases/yarn-4.5.0.cjs", "node runs yarnPath for every yarn"},
	// A flow mapping (YAML is a superset of JSON: {"yarnPath": ...}).
	{"yarnPathFlow", ".yarnrc.yml", "{nodeLinker: pnp, yarnPath: .yarn/releases/yarn-4.5.0.cjs}\n", ".yarn/releases/yarn-4.5.0.cjs", "node runs yarnPath for every yarn"},
	// A double-quoted key with an escape.
	{"yarnPathEscapedKey", ".yarnrc.yml", "\"yarn\\x50ath\": .yarn/releases/yarn-4.5.0.cjs\n", ".yarn/releases/yarn-4.5.0.cjs", "node runs yarnPath for every yarn"},
	// A plugin given as a flow mapping in the block sequence.
	{"yarnPluginFlow", ".yarnrc.yml", "plugins:\n  - {path: .yarn/plugins/p.cjs, spec: p}\n", ".yarn/plugins/p.cjs", "every yarn loads its plugins"},
	// The plugins as a flow sequence.
	{"yarnPluginsFlowSeq", ".yarnrc.yml", "plugins: [.yarn/plugins/p.cjs]\n", ".yarn/plugins/p.cjs", "every yarn loads its plugins"},
	// JVM options: an @argfile (the java launcher reads more options,
	// -javaagent among them, from it) and -XX:VMOptionsFile (the JVM does).
	{"jvmArgFile", ".mvn/jvm.config", "-Xmx2g @tools/jvm.args\n", "tools/jvm.args", "java reads its options (a -javaagent) from the @file"},
	{"jvmVMOptionsFile", ".mvn/jvm.config", "-XX:VMOptionsFile=tools/vm.options\n", "tools/vm.options", "the JVM reads its options from the file"},
	// --patch-module replaces java.base's classes with the directory's.
	{"jvmPatchModule", ".jvmopts", "--patch-module=java.base=tools/patch\n", "tools/patch", "java.base's classes come from the directory"},
	// Cargo: a linker given in rustflags (rustc runs it), and a
	// rustc-wrapper whose path holds a space (cargo takes the whole string
	// as the path; the parser takes "tools/my").
	{"cargoRustflagsLinker", ".cargo/config.toml", "[build]\nrustflags = [\"-C\", \"linker=tools/ld\"]\n", "tools/ld", "rustc runs the linker for every binary cargo builds"},
	{"cargoWrapperSpace", ".cargo/config.toml", "[build]\nrustc-wrapper = \"tools/my wrap\"\n", "tools/my wrap", "cargo runs the wrapper for every rustc"},
	// global.json with a comment (the dotnet host accepts them, so
	// encoding/json is not used) whose "]" ends the regular expression's
	// array early.
	{"globalJSONCommentBracket", "global.json", "{\"sdk\": {\"paths\": [ /* the repo's SDK, not [host] */ \".dotnet\", \"$host$\" ]}}\n", ".dotnet/sdk/10.0.100/dotnet.dll", "the dotnet host takes its SDK from .dotnet"},
	// ... or an escaped key, beside a comment.
	{"globalJSONEscapedKey", "global.json", "{ // pinned\n \"sdk\": {\"pa\\u0074hs\": [\".dotnet\"]}}\n", ".dotnet/sdk/10.0.100/dotnet.dll", "the dotnet host takes its SDK from .dotnet"},
}

// TestAttack140_LauncherFileFormsMissed: each target above, named by a
// protected launcher file in a form the tool reads, is written by a file
// tool (the decision allows it). Control: TestAttack140_LauncherFileFormsMissedControl.
func TestAttack140_LauncherFileFormsMissed(t *testing.T) {
	for _, c := range launcherForms140 {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{c.file: c.data, c.target: "original\n", "tools/neighbour": "n\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, c.file, domain.AccessWrite, false); err == nil {
				t.Fatalf("premise: %s itself is writable", c.file)
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, c.target, domain.AccessWrite, false); err == nil {
				t.Errorf("ESCAPED (decision): a write of %s, which %s names (%s), was allowed", c.target, c.file, c.why)
			}
		})
	}
}

// TestAttack140_LauncherFileFormsMissedControl: the same targets named in
// the form the parser reads are refused, and a neighbour no file names is
// written.
func TestAttack140_LauncherFileFormsMissedControl(t *testing.T) {
	for _, c := range []struct{ file, data, target string }{
		{".yarnrc.yml", "yarnPath: .yarn/releases/yarn-4.5.0.cjs\n", ".yarn/releases/yarn-4.5.0.cjs"},
		{".yarnrc.yml", "plugins:\n  - path: .yarn/plugins/p.cjs\n", ".yarn/plugins/p.cjs"},
		{".mvn/jvm.config", "-javaagent:tools/jvm.args\n", "tools/jvm.args"},
		{".jvmopts", "-Xbootclasspath/a:tools/patch\n", "tools/patch"},
		{".cargo/config.toml", "[build]\nrustc-wrapper = \"tools/ld\"\n", "tools/ld"},
		{"global.json", "{\"sdk\": {\"paths\": [\".dotnet\", \"$host$\"]}}\n", ".dotnet/sdk/10.0.100/dotnet.dll"},
	} {
		t.Run(strings.ReplaceAll(c.file, "/", "_"), func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{c.file: c.data, c.target: "original\n", "tools/neighbour": "n\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, c.target, domain.AccessWrite, false); err == nil {
				t.Errorf("control: a write of %s, named in the parsed form, was allowed", c.target)
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, "tools/neighbour", domain.AccessWrite, false); err != nil {
				t.Errorf("control: a write of tools/neighbour was refused: %v", err)
			}
		})
	}
}
