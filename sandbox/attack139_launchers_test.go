package sandbox

import (
	"os"
	"slices"
	"strings"
	"testing"

	"turnstile/domain"
)

// launcher139 are files of the kind review 136 protected (a host program
// reads them in the directory a person runs it in, or above it, and runs
// a program they name, whatever the command), left writable:
var launcher139 = []struct{ path, why string }{
	// R reads the cwd's .Renviron before its profile: R_PROFILE_USER=FILE
	// makes R and Rscript source FILE instead of .Rprofile (protected).
	{".Renviron", "R_PROFILE_USER=tools/x.R: R and Rscript source it"},
	// cargo reads .cargo/config.toml in the cwd and each directory above:
	// build.rustc-wrapper runs a program for every rustc cargo starts
	// (rust-toolchain is protected).
	{".cargo/config.toml", "[build] rustc-wrapper = \"/tmp/w\": every cargo build and check runs it"},
	{".cargo/config", "the legacy name of .cargo/config.toml"},
	// sbt's launcher reads the project's .jvmopts and .sbtopts: JVM
	// options as Maven's .mvn/jvm.config (protected).
	{".jvmopts", "-XX:OnOutOfMemoryError=CMD for every sbt"},
	{".sbtopts", "-J-XX:OnOutOfMemoryError=CMD for every sbt"},
	// Gradle's gradle.properties (org.gradle.java.home names the JDK the
	// daemon runs) is left out since the fix: it is a build file, edited
	// by agents as a project's build.gradle is, and a gradle build runs
	// the project's build scripts anyway (domain/protected.go).
	// bun: preload scripts run before every bun run and bun test.
	{"bunfig.toml", "preload = [\"./x.ts\"]"},
	{"sub/.cargo/config.toml", "a subdirectory's: cargo run there reads it"},
	{"sub/.Renviron", "a subdirectory's: R started there reads it"},
}

// TestAttack139_LauncherFilesWritable: a file tool's write of each is
// allowed at the root and below it, and a command's is kept by the check
// after it (not set aside), while their protected neighbours are refused
// and set aside (TestAttack139_LauncherFilesWritableControl).
func TestAttack139_LauncherFilesWritable(t *testing.T) {
	f := newPlantFixture(t)
	for _, l := range launcher139 {
		if _, err := (DecisionChecker{}).ResolveFile(f.s, l.path, domain.AccessWrite, false); err == nil {
			t.Errorf("ESCAPED (decision): a write of %s was allowed (%s)", l.path, l.why)
		}
	}
	var script []string
	script = append(script, "mkdir -p .cargo sub/.cargo")
	for _, l := range launcher139 {
		script = append(script, "echo 'x' > "+l.path)
	}
	r := sh(t, f.s, strings.Join(append(script, "echo ok"), " && "))
	attackReport(t, "command", r)
	if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("the command failed (%d): %s", r.ExitCode, r.Stderr)
	}
	for _, l := range launcher139 {
		if exists(f.ws + "/" + l.path) {
			t.Errorf("ESCAPED (command): %s the command made stays where the host's tool reads it (%s)", l.path, l.why)
		}
	}
}

// TestAttack139_LauncherFilesWritableControl: the protected neighbours
// (.Rprofile, rust-toolchain.toml, .mvn/jvm.config) are refused to a file
// tool and set aside after a command that made them; an ordinary file is
// written and kept.
func TestAttack139_LauncherFilesWritableControl(t *testing.T) {
	f := newPlantFixture(t)
	prot := []string{".Rprofile", "rust-toolchain.toml", ".mvn/jvm.config", "sub/.Rprofile", "sub/rust-toolchain.toml"}
	for _, p := range prot {
		if _, err := (DecisionChecker{}).ResolveFile(f.s, p, domain.AccessWrite, false); err == nil {
			t.Errorf("control: a write of %s was allowed", p)
		}
	}
	if _, err := (DecisionChecker{}).ResolveFile(f.s, "sub/notes.txt", domain.AccessWrite, false); err != nil {
		t.Errorf("control: a write of sub/notes.txt: %v", err)
	}
	var script []string
	script = append(script, "mkdir -p .mvn sub")
	for _, p := range prot {
		script = append(script, "echo 'x' > "+p)
	}
	r := sh(t, f.s, strings.Join(append(script, "echo x > sub/notes.txt", "echo ok"), " && "))
	attackReport(t, "command", r)
	if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("the command failed (%d): %s", r.ExitCode, r.Stderr)
	}
	got := quarantined(r)
	for _, p := range prot {
		held := slices.ContainsFunc(got, func(q string) bool { return domain.PathWithin(f.ws+"/"+p, q) }) // the item or its .mvn
		if exists(f.ws+"/"+p) || !held {
			t.Errorf("control: %s was not set aside (%v)", p, got)
		}
	}
	if !exists(f.ws + "/sub/notes.txt") {
		t.Errorf("control: sub/notes.txt is gone")
	}
}

// TestAttack139_YarnPathTargetWritable: Yarn Berry's own layout names a
// script in the repository (.yarnrc.yml "yarnPath:
// .yarn/releases/yarn-4.5.0.cjs"; node runs it for every yarn command, the
// reason .yarnrc.yml is protected). The .yarnrc.yml is read-only; the
// script it names is not: a file tool rewrites it, and so does a command,
// kept by the check. (git's filter programs named in its config are held
// read-only where they are files; yarn's is not.)
func TestAttack139_YarnPathTargetWritable(t *testing.T) {
	f := newPlantFixture(t)
	rel := ".yarn/releases/yarn-4.5.0.cjs"
	mkfiles(t, f.ws, map[string]string{".yarnrc.yml": "yarnPath: " + rel + "\n", rel: "// yarn\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err == nil {
		t.Errorf("ESCAPED (decision): a write of %s, the script .yarnrc.yml's yarnPath names, was allowed", rel)
	}
	r := sh(t, s, "echo 'require(\"child_process\").execSync(\"id\")' >> "+rel+" && echo ok")
	attackReport(t, "command", r)
	if strings.Contains(readFileOr(f.ws+"/"+rel), "child_process") {
		t.Errorf("ESCAPED (command): %s, which every yarn runs, holds the command's code", rel)
	}
}

// TestAttack139_YarnPathTargetWritableControl: the .yarnrc.yml itself is
// refused to a file tool and read-only to a command.
func TestAttack139_YarnPathTargetWritableControl(t *testing.T) {
	f := newPlantFixture(t)
	rel := ".yarn/releases/yarn-4.5.0.cjs"
	mkfiles(t, f.ws, map[string]string{".yarnrc.yml": "yarnPath: " + rel + "\n", rel: "// yarn\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, ".yarnrc.yml", domain.AccessWrite, false); err == nil {
		t.Errorf("control: a write of .yarnrc.yml was allowed")
	}
	r := sh(t, s, "echo 'yarnPath: /tmp/evil.cjs' >> .yarnrc.yml; echo done")
	attackReport(t, "command", r)
	if strings.Contains(readFileOr(f.ws+"/.yarnrc.yml"), "evil") {
		t.Errorf("control: the command rewrote .yarnrc.yml")
	}
}

func readFileOr(p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}

// TestAttack139_GlobalJSONSdkPathTargetWritable: .NET's global.json is
// protected for sdk.paths (where the dotnet host takes its SDK); the
// layout .NET 10 documents and repositories use names one in the
// repository (".dotnet", beside "$host$"): the SDK the host picks there,
// .dotnet/sdk/<version>/dotnet.dll, runs for every dotnet command. The
// global.json is read-only; the SDK it names is written by a file tool and
// by a command, kept by the check.
func TestAttack139_GlobalJSONSdkPathTargetWritable(t *testing.T) {
	f := newPlantFixture(t)
	rel := ".dotnet/sdk/10.0.100/dotnet.dll"
	mkfiles(t, f.ws, map[string]string{"global.json": `{"sdk":{"version":"10.0.100","paths":[".dotnet","$host$"]}}` + "\n", rel: "MZ\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, rel, domain.AccessWrite, false); err == nil {
		t.Errorf("ESCAPED (decision): a write of %s, in the SDK path global.json names, was allowed", rel)
	}
	r := sh(t, s, "echo planted-a139 >> "+rel+" && echo ok")
	attackReport(t, "command", r)
	if strings.Contains(readFileOr(f.ws+"/"+rel), "planted-a139") {
		t.Errorf("ESCAPED (command): %s, which every dotnet there runs, holds the command's bytes", rel)
	}
}

// TestAttack139_GlobalJSONSdkPathTargetWritableControl: global.json
// itself is refused to a file tool and read-only to a command.
func TestAttack139_GlobalJSONSdkPathTargetWritableControl(t *testing.T) {
	f := newPlantFixture(t)
	rel := ".dotnet/sdk/10.0.100/dotnet.dll"
	mkfiles(t, f.ws, map[string]string{"global.json": `{"sdk":{"version":"10.0.100","paths":[".dotnet","$host$"]}}` + "\n", rel: "MZ\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, "global.json", domain.AccessWrite, false); err == nil {
		t.Errorf("control: a write of global.json was allowed")
	}
	r := sh(t, s, `echo '{"sdk":{"paths":["/tmp/evil"]}}' > global.json; echo done`)
	attackReport(t, "command", r)
	if strings.Contains(readFileOr(f.ws+"/global.json"), "evil") {
		t.Errorf("control: the command rewrote global.json")
	}
}
