package sandbox

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"turnstile/domain"
)

// TestLauncherRefsOf: what each launcher file's format names for a host
// program to run, load or take a toolchain from; and what it does not (a
// program looked up in PATH, a package name, the dotnet host's own SDK).
func TestLauncherRefsOf(t *testing.T) {
	for _, c := range []struct {
		item, data string
		want       []string
	}{
		{".yarnrc.yml", "nodeLinker: pnp\nyarnPath: .yarn/releases/yarn-4.5.0.cjs # pinned\n", []string{".yarn/releases/yarn-4.5.0.cjs"}},
		{".yarnrc.yml", "yarnPath: \"x y.cjs\"\nplugins:\n  - path: .yarn/plugins/a.cjs\n    spec: a\n  - .yarn/plugins/b.cjs\nenableTelemetry: false\n", []string{"x y.cjs", ".yarn/plugins/a.cjs", ".yarn/plugins/b.cjs"}},
		// A path key anywhere is taken (an over-approximation: a path
		// kept read-only that is none costs a write).
		{".yarnrc.yml", "packageExtensions:\n  path: not-a-plugin\n", []string{"not-a-plugin"}},
		{".yarnrc.yml", "nodeLinker: pnp # yarnPath: no\nenableTelemetry: false\n", nil},
		{".yarnrc", "# yarn lockfile v1\nyarn-path \".yarn/releases/yarn-1.22.19.cjs\"\n", []string{".yarn/releases/yarn-1.22.19.cjs"}},
		{"global.json", `{"sdk":{"version":"10.0.100","paths":[".dotnet","$host$"]}}`, []string{".dotnet"}},
		{"global.json", "{\n // comments are allowed\n \"sdk\": { \"paths\": [ \"tools/sdk\" ] }\n}\n", []string{"tools/sdk"}},
		{".tool-versions", "nodejs 22.1.0\npython path:./tools/py # local build\n", []string{"./tools/py"}},
		{"rust-toolchain.toml", "[toolchain]\npath = \"tools/rust\"\n", []string{"tools/rust"}},
		{"rust-toolchain", "nightly-2025-01-01\n", nil},
		{".cargo/config.toml", "[build]\nrustc-wrapper = \"tools/wrap.sh\"\nrustc = \"rustc\"\n[target.x86_64-unknown-linux-gnu]\nlinker = \"./tools/ld\"\nrunner = [\"tools/run\", \"--flag\"]\n[registry]\nglobal-credential-providers = [\"cargo:token\", \"tools/cred --x\"]\n",
			[]string{"tools/wrap.sh", "./tools/ld", "tools/run", "tools/cred"}},
		{"bunfig.toml", "preload = [\"./setup.ts\", \"bun-plugin-x\"]\n[test]\npreload = \"./test-setup.ts\"\n", []string{"./setup.ts", "./test-setup.ts"}},
		{".Renviron", "R_LIBS_USER=lib\nR_PROFILE_USER=\"tools/x.R\"\nR_HOME=/usr/lib/R\n", []string{"lib", "tools/x.R"}}, // the libraries too (review 146)
		{".mvn/jvm.config", "-Xmx2g -javaagent:tools/agent.jar=opt\n-XX:OnOutOfMemoryError=tools/oom.sh\n", []string{"tools/agent.jar", "tools/oom.sh"}},
		{".mvn/maven.config", "-Dmaven.ext.class.path=ext/a.jar:ext/b.jar\n", []string{"ext/a.jar", "ext/b.jar"}},
		{".sbtopts", "-J-agentpath:lib/a.so\n-sbt-jar tools/sbt-launch.jar\n", []string{"lib/a.so", "tools/sbt-launch.jar"}},
		{".jvmopts", "-Xss4m\n", nil},
	} {
		got := launcherRefsOf(c.item, []byte(c.data))
		slices.Sort(got)
		want := slices.Clone(c.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("launcherRefsOf(%s, %q) = %q, want %q", c.item, c.data, got, c.want)
		}
	}
}

// TestAttack139_YarnPathTargetWritable (the hundred-and-thirty-ninth
// review): Yarn Berry's own layout names a script in the repository
// (.yarnrc.yml "yarnPath: .yarn/releases/yarn-4.5.0.cjs"; node runs it for
// every yarn command, the reason .yarnrc.yml is protected). The
// .yarnrc.yml was read-only, the script it names not: a file tool rewrote
// it, and so did a command, kept by the check. Now it is read-only to both
// (protectLauncherRefs). Control: the release's neighbour, which no
// launcher file names, is written by both.
func TestAttack139_YarnPathTargetWritable(t *testing.T) {
	f := newPlantFixture(t)
	rel := ".yarn/releases/yarn-4.5.0.cjs"
	mkfiles(t, f.ws, map[string]string{".yarnrc.yml": "yarnPath: " + rel + "\n", rel: "// yarn\n", ".yarn/releases/notes.txt": "n\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err == nil {
		t.Errorf("ESCAPED (decision): a write of %s, the script .yarnrc.yml's yarnPath names, was allowed", rel)
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, ".yarn/releases/notes.txt", domain.AccessWrite, false); err != nil {
		t.Errorf("control: a write of the release's neighbour was refused: %v", err)
	}
	r := sh(t, s, "echo 'require(\"child_process\").execSync(\"id\")' >> "+rel+"; mv .yarn .yarn.old; echo y >> .yarn/releases/notes.txt && echo ok")
	if strings.Contains(readFileOr(f.ws+"/"+rel), "child_process") || !exists(f.ws+"/"+rel) {
		t.Errorf("ESCAPED (command): %s, which every yarn runs, holds the command's code or was moved (%d %s)", rel, r.ExitCode, r.Stderr)
	}
	if !strings.Contains(string(r.Stdout), "ok") || readFileOr(f.ws+"/.yarn/releases/notes.txt") != "n\ny\n" {
		t.Errorf("control: the command could not write the release's neighbour: %d %s", r.ExitCode, r.Stderr)
	}
}

// TestAttack139_YarnPathTargetMissingMade: a yarnPath whose script does
// not exist yet is refused to a write decision and set aside when a
// command makes it; a .yarnrc.yml that names none leaves the same path
// the command's (control).
func TestAttack139_YarnPathTargetMissingMade(t *testing.T) {
	for _, named := range []bool{true, false} {
		f := newPlantFixture(t)
		rel := ".yarn/releases/yarn-4.5.0.cjs"
		rc := "nodeLinker: pnp\n"
		if named {
			rc += "yarnPath: " + rel + "\n"
		}
		mkfiles(t, f.ws, map[string]string{".yarnrc.yml": rc})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
		_, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false)
		if named != (err != nil) {
			t.Errorf("named %v: the write decision on the missing %s: %v", named, rel, err)
		}
		r := sh(t, s, "mkdir -p .yarn/releases && echo planted > "+rel)
		if named == exists(f.ws+"/"+rel) {
			t.Errorf("named %v: the script the command made is there: %v (%d %s, set aside %+v)", named, exists(f.ws+"/"+rel), r.ExitCode, r.Stderr, r.Quarantined)
		}
	}
}

// TestAttack139_GlobalJSONSdkPathTargetWritable: .NET's global.json is
// protected for sdk.paths (where the dotnet host takes its SDK); the
// layout .NET 10 documents and repositories use names one in the
// repository (".dotnet", beside "$host$"): the SDK the host picks there,
// .dotnet/sdk/<version>/dotnet.dll, runs for every dotnet command. It was
// written by a file tool and by a command; now the directory is
// read-only. Control: a directory global.json does not name.
func TestAttack139_GlobalJSONSdkPathTargetWritable(t *testing.T) {
	f := newPlantFixture(t)
	rel := ".dotnet/sdk/10.0.100/dotnet.dll"
	mkfiles(t, f.ws, map[string]string{"global.json": `{"sdk":{"version":"10.0.100","paths":[".dotnet","$host$"]}}` + "\n", rel: "MZ\n", ".other/sdk/x.dll": "MZ\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err == nil {
		t.Errorf("ESCAPED (decision): a write of %s, in the SDK path global.json names, was allowed", rel)
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, ".other/sdk/x.dll", domain.AccessWrite, false); err != nil {
		t.Errorf("control: a write in a directory global.json does not name was refused: %v", err)
	}
	r := sh(t, s, "echo planted-a139 >> "+rel+"; echo mine >> .other/sdk/x.dll && echo ok")
	if strings.Contains(readFileOr(f.ws+"/"+rel), "planted-a139") {
		t.Errorf("ESCAPED (command): %s, which every dotnet there runs, holds the command's bytes", rel)
	}
	if !strings.Contains(readFileOr(f.ws+"/.other/sdk/x.dll"), "mine") {
		t.Errorf("control: the command could not write a directory global.json does not name: %d %s", r.ExitCode, r.Stderr)
	}
}

// TestLauncherRefOutsideRootsIgnored: a launcher file naming a path
// outside the writable roots (the person's own SDK) adds nothing, and a
// command still runs.
func TestLauncherRefOutsideRootsIgnored(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{"global.json": `{"sdk":{"paths":["/usr/share/dotnet", "../elsewhere"]}}` + "\n", ".cargo/config.toml": "[build]\nrustc-wrapper = \"sccache\"\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if r := sh(t, s, "echo ok > out.txt"); r.ExitCode != 0 || readFileOr(f.ws+"/out.txt") != "ok\n" {
		t.Fatalf("a command in a workspace whose launcher files name paths elsewhere: %d %s", r.ExitCode, r.Stderr)
	}
}

// TestLauncherRefsOfMoreForms: the forms review 140 found the first
// parsers missed, and the scripts .Rprofile, .envrc and mise configs run.
func TestLauncherRefsOfMoreForms(t *testing.T) {
	for _, c := range []struct {
		item, data string
		want       []string
	}{
		{".yarnrc.yml", "\ufeffyarnPath: a.cjs\n", []string{"a.cjs"}},
		{".yarnrc.yml", "{yarnPath: a.cjs, plugins: [p.cjs, {path: q.cjs}]}\n", []string{"a.cjs", "p.cjs", "q.cjs"}},
		{".yarnrc.yml", "yarnPath: >-\n  a.cjs\n", []string{"a.cjs"}},
		{".yarnrc", "yarn-path: \"a.cjs\"\n", []string{"a.cjs"}},
		{"global.json", "{ /* [x] */ \"sdk\": {\"pa\\u0074hs\": [\".dotnet\", \"$host$\",], // y\n}}\n", []string{".dotnet"}},
		{".mvn/jvm.config", "@tools/args -XX:VMOptionsFile=tools/vm --patch-module java.base=tools/p\n", []string{"tools/args", "tools/vm", "java.base=tools/p", "tools/p"}},
		{".sbtopts", "-sbt-boot b -J-Dsbt.global.base=g\n", []string{"b", "g"}},
		{".cargo/config.toml", "[build]\nrustc-wrapper = \"tools/my wrap\"\nrustflags = [\"-C\", \"linker=tools/ld\"]\n[env]\nLD_PRELOAD = { value = \"tools/p.so\", relative = true }\nX = \"1\"\n",
			[]string{"tools/my wrap", "tools/ld", "tools/p.so"}},
		{".Rprofile", "source(\"renv/activate.R\")\n", []string{"renv/activate.R"}},
		{".envrc", "source_env scripts/a\nuse nix; source ./b.sh\n# source c\n", []string{"scripts/a", "./b.sh", "shell.nix", "default.nix"}},
		{"mise.toml", "[env]\n_.source = \"./env.sh\"\n[hooks]\nenter = \"./enter.sh arg\"\nleave = \"echo bye\"\n[tools]\npython = \"path:./py\"\nnode = \"22\"\n", []string{"./env.sh", "./enter.sh", "./py"}},
		// Review 143's forms: every directory of PATH_add and path_add,
		// load_prefix, a bare dotenv, a command behind a shell keyword,
		// PATH set directly, $PWD.
		{".envrc", "PATH_add bin \"$PWD/tools\" # x\npath_add PATH a b\nload_prefix pre\ndotenv\nif has x; then source_env s.envrc; fi\nexport PATH=$PWD/p:${PWD}/q:$PATH\n",
			[]string{"bin", "./tools", "a", "b", "pre", ".env", "s.envrc", "./p", "./q"}},
		{"mise.toml", "[env]\n_.path = [\"{{config_root}}/bin\"]\n_.source = [{ path = \"{{ config_root }}/a.sh\" }, \"b/*.sh\"]\n[hooks]\nenter = \"bash ./e.sh --flag x.sh\"\n",
			[]string{"./bin", "./a.sh", "b/*.sh", "./e.sh", "x.sh"}},
		{".cargo/config.toml", "[registry]\ncredential-provider = \"cargo:token-from-stdout tools/c.sh\"\n[credential-alias]\nm = [\"tools/m.sh\", \"--x\"]\nn = \"tools/n.sh arg\"\n[doc]\nbrowser = \"tools/b.sh\"\n",
			[]string{"tools/c.sh", "tools/m.sh", "tools/n.sh", "tools/b.sh"}},
	} {
		got := launcherRefsOf(c.item, []byte(c.data))
		slices.Sort(got)
		want := slices.Clone(c.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("launcherRefsOf(%s, %q) = %q, want %q", c.item, c.data, got, want)
		}
	}
	if got := expandLauncherVars("${A:-x}/${B-y}/${MAVEN_PROJECTBASEDIR}/${C}", "/w"); got != "x/y//w/${C}" {
		t.Errorf("expandLauncherVars = %q", got)
	}
}

// TestYarnrcYMLRefsAnyInput: the YAML reader takes any input without
// failing, and finds a yarnPath written plainly after whatever precedes
// it on other lines.
func TestYarnrcYMLRefsAnyInput(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		junk := rapid.StringOfN(rapid.SampledFrom([]rune("ab:- \n\t#'\"\\{}[],|>x\ufeff")), 0, 60, -1).Draw(t, "junk")
		yarnrcYMLRefs([]byte(junk))
		doc := junk + "\n\nyarnPath: .yarn/releases/y.cjs\n"
		if !yamlOpensQuote(junk) && !strings.ContainsAny(junk, "{[|>") {
			if got := yarnrcYMLRefs([]byte(doc)); !slices.Contains(got, ".yarn/releases/y.cjs") {
				t.Fatalf("yarnPath after %q not found: %q", junk, got)
			}
		}
	})
}

// yamlOpensQuote: whether a quote in data may open a quoted scalar, one
// that can run on over the lines after it (an unterminated one swallows
// the rest, and YAML readers refuse such a file). A quote opens one only
// where a scalar starts: first on its line, after an indicator (':',
// '-', '?') and whitespace, or after a quoted scalar or a flow's end
// ('}', ']', which the reader takes as such anywhere). Elsewhere, as in a"b, it
// is a character of a plain scalar (counting quotes got this wrong: a"
// then a line " opens a string). Cautious: a quote after "a -" counts.
func yamlOpensQuote(data string) bool {
	data = strings.TrimPrefix(data, "\ufeff")
	for line := range strings.SplitSeq(data, "\n") {
		for i := 0; i < len(line); i++ {
			if line[i] != '"' && line[i] != '\'' {
				continue
			}
			before := strings.TrimRight(line[:i], " \t")
			last := before[max(len(before)-1, 0):]
			if last == "" || strings.ContainsAny(last, "\"'}]") || strings.ContainsAny(last, ":-?") && len(before) < i {
				return true
			}
		}
	}
	return false
}

// TestLauncherFilesPastBoundRefused: more launcher files in a root than
// the walk keeps refuses the commands there (what those past the bound
// name would stay writable); a root holding some runs them (the control).
// Decoys spelled in other cases in one directory count once.
func TestLauncherFilesPastBoundRefused(t *testing.T) {
	requireKernel(t, true)
	names := []string{".yarnrc.yml", ".yarnrc", "global.json", ".tool-versions", "rust-toolchain", "rust-toolchain.toml",
		".Rprofile", ".Renviron", ".jvmopts", ".sbtopts", "bunfig.toml", ".envrc", "mise.toml", ".mise.toml",
		"mise.local.toml", ".mise.local.toml", ".rtx.toml", ".rtx.local.toml"}
	for _, c := range []struct {
		dirs    int
		refused bool
	}{{10, false}, {maxWalkLaunchers/len(names) + 1, true}} {
		ws := tempWorkspace(t)
		files := map[string]string{}
		for i := 0; i < c.dirs; i++ {
			for _, n := range names {
				files[fmt.Sprintf("d%04d/%s", i, n)] = "x\n"
			}
		}
		// Case decoys in one directory: one item.
		for _, n := range []string{".YARNRC.yml", ".yarnRC.yml", ".Yarnrc.YML", ".yarnrc.yml"} {
			files["decoy/"+n] = "x\n"
		}
		mkfiles(t, ws, files)
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
		_, err := run(t, s, SpawnRequest{Argv: []string{"/bin/true"}}, nil)
		if c.refused != (err != nil) || c.refused && !strings.Contains(err.Error(), "launcher") {
			t.Errorf("%d directories of %d launcher files: refused %v, want %v", c.dirs, len(names), err, c.refused)
		}
		// The bound is named once, however many files lie past it.
		n := 0
		for _, l := range walkRoot(ws).limits {
			if strings.Contains(l, "launcher files past") {
				n++
			}
		}
		if want := map[bool]int{false: 0, true: 1}[c.refused]; n != want {
			t.Errorf("%d directories: the walk named the launcher bound %d times, want %d", c.dirs, n, want)
		}
	}
}
