package sandbox

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestToolchainFilesNestedMadeByCommand: the command side of the
// launcher and toolchain files of readAtAnyDepth below the root
// (TestAttack136_YarnPathFileStays has the root's and one .yarnrc.yml
// below it). A command makes sub/.mvn/jvm.config (Maven's JVM options:
// -XX:OnOutOfMemoryError runs a command) and sub/.mvn/maven.config
// (-Dmaven.ext.class.path loads a jar), sub/global.json (.NET's
// sdk.paths), sub/deeper/rust-toolchain, src/.RPROFILE (another case) and
// a link lib/.mvn to a directory holding a jvm.config, and rewrites in
// place the jvm.config a person's older link lib2/.mvn leads to; the check
// sets each aside. Controls: the .mvn's other files (its wrapper's
// properties), a person's sub/.yarnrc and kept/.mvn/jvm.config the command
// did not touch, the person's link lib2/.mvn, and package.json and
// appsettings.json beside them stay.
func TestToolchainFilesNestedMadeByCommand(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		"sub/.yarnrc":          "registry \"https://registry.yarnpkg.com\"\n",
		"shared-mvn/settings":  "x\n",
		"kept/.mvn/jvm.config": "-Xmx1g\n",
		"shared2/jvm.config":   "-Xmx1g\n",
		"lib2/keep":            "x\n",
	})
	mustDo(t, os.Symlink("../shared2", f.ws+"/lib2/.mvn"))
	for _, p := range []string{"sub/.yarnrc", "shared-mvn/settings", "kept/.mvn/jvm.config", "kept/.mvn", "kept", "shared2/jvm.config", "shared2", "lib2/.mvn", "lib2"} {
		clockPast(t, f.ws+"/"+p)
	}
	r := sh(t, f.s, strings.Join([]string{
		"mkdir -p sub/.mvn/wrapper sub/deeper src lib",
		"echo '-Xmx2m -XX:OnOutOfMemoryError=id' > sub/.mvn/jvm.config",
		"echo '-Dmaven.ext.class.path=evil.jar' > sub/.mvn/maven.config",
		"echo 'distributionUrl=https://example.com/maven.zip' > sub/.mvn/wrapper/maven-wrapper.properties",
		`echo '{"sdk":{"paths":["/tmp/evil-sdk"]}}' > sub/global.json`,
		"echo '[toolchain]' > sub/deeper/rust-toolchain",
		`echo 'system("id")' > src/.RPROFILE`,
		"echo '-XX:OnOutOfMemoryError=id' > shared-mvn/jvm.config && ln -s ../shared-mvn lib/.mvn",
		"echo '-XX:OnOutOfMemoryError=id' >> shared2/jvm.config",
		"echo '{}' > sub/package.json && echo '{}' > sub/appsettings.json",
		"echo ok",
	}, " && "))
	attackReport(t, "command", r)
	if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("the command failed (%d): %s", r.ExitCode, r.Stderr)
	}
	want := []string{"lib/.mvn", "lib2/.mvn/jvm.config", "src/.RPROFILE", "sub/.mvn/jvm.config", "sub/.mvn/maven.config", "sub/deeper/rust-toolchain", "sub/global.json"}
	for i := range want {
		want[i] = f.ws + "/" + want[i]
	}
	got := quarantined(r)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("set aside %v, want %v (%+v)", got, want, r.Quarantined)
	}
	for _, p := range want {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("ESCAPED: %s is still where the host's tools read it", p)
		}
	}
	for _, p := range []string{"sub/.mvn/wrapper/maven-wrapper.properties", "sub/.yarnrc", "sub/package.json", "sub/appsettings.json", "kept/.mvn/jvm.config", "lib2/.mvn"} {
		if !exists(f.ws + "/" + p) {
			t.Errorf("DAMAGE: %s is gone", p)
		}
	}
}

// TestPersonsJvmConfigStaysBesideCommandsFiles: the control of the moved
// rule (agentItemBelow): the person's own kept/.mvn/jvm.config stays when a
// later command writes another file into kept/.mvn (its change time moves,
// but the last walk found that directory there; a first walk cannot tell,
// and sets it aside); the same
// jvm.config moved into place by the command inside a directory it renamed
// is set aside (TestAttack139_MvnDirRenamedOverOlderJvmConfig).
func TestPersonsJvmConfigStaysBesideCommandsFiles(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{"kept/.mvn/jvm.config": "-Xmx1g\n"})
	for _, p := range []string{"kept/.mvn/jvm.config", "kept/.mvn", "kept"} {
		clockPast(t, f.ws+"/"+p)
	}
	if _, err := os.Stat(f.ws + "/kept/.mvn/jvm.config"); err != nil {
		t.Fatalf("premise: %v", err)
	}
	sh(t, f.s, "true") // a first walk (a server's later checks know what was there)
	r := sh(t, f.s, "echo x > kept/.mvn/notes && echo ok")
	if !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("premise: %s %s", r.Stdout, r.Stderr)
	}
	if len(r.Quarantined) > 0 {
		t.Errorf("a write beside the person's jvm.config set aside %+v", r.Quarantined)
	}
	if b, err := os.ReadFile(f.ws + "/kept/.mvn/jvm.config"); err != nil || string(b) != "-Xmx1g\n" {
		t.Errorf("the person's jvm.config: %q %v", b, err)
	}
}
