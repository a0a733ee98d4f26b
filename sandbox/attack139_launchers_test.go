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

func readFileOr(p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}

// Review 139 also showed what .yarnrc.yml and global.json name inside the
// workspace (Yarn Berry's .yarn/releases/*.cjs, a global.json's SDK
// directory) writable: left (README), its tests on branch review139.
