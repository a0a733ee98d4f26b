package sandbox

import (
	"testing"

	"turnstile/domain"
)

// TestAttack140_SbtBootDirectory: jvmOptionRefs reads sbt's -sbt-jar (the
// launcher jar) but not where that launcher takes sbt itself from: the
// boot directory (-sbt-boot DIR, or -Dsbt.boot.directory=DIR as a JVM
// option), whose jars every sbt started there loads, and its global base
// (-sbt-dir DIR, -Dsbt.global.base=DIR: global plugins compiled and loaded
// by every sbt). Named in the workspace, each stays writable to a file
// tool. Control (TestAttack140_SbtBootDirectoryControl): -sbt-jar's jar is
// refused.
func TestAttack140_SbtBootDirectory(t *testing.T) {
	for _, c := range []struct{ name, file, data, target string }{
		{"sbtBoot", ".sbtopts", "-sbt-boot tools/boot\n", "tools/boot/scala-2.12.20/org.scala-sbt/sbt/1.10.0/main_2.12-1.10.0.jar"},
		{"bootDirectoryProperty", ".jvmopts", "-Dsbt.boot.directory=tools/boot\n", "tools/boot/scala-2.12.20/org.scala-sbt/sbt/1.10.0/main_2.12-1.10.0.jar"},
		{"sbtDir", ".sbtopts", "-sbt-dir tools/sbt-global\n", "tools/sbt-global/1.0/plugins/evil.sbt"},
		{"globalBaseProperty", ".sbtopts", "-J-Dsbt.global.base=tools/sbt-global\n", "tools/sbt-global/1.0/plugins/evil.sbt"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{c.file: c.data, c.target: "x\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, c.file, domain.AccessWrite, false); err == nil {
				t.Fatalf("premise: %s itself is writable", c.file)
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, c.target, domain.AccessWrite, false); err == nil {
				t.Errorf("ESCAPED (decision): a write of %s, below the directory %s names (%q), was allowed", c.target, c.file, c.data)
			}
		})
	}
}

func TestAttack140_SbtBootDirectoryControl(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{".sbtopts": "-sbt-jar tools/boot/sbt-launch.jar\n", "tools/boot/sbt-launch.jar": "x\n", "tools/other": "o\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, "tools/boot/sbt-launch.jar", domain.AccessWrite, false); err == nil {
		t.Errorf("control: a write of the -sbt-jar jar was allowed")
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, "tools/other", domain.AccessWrite, false); err != nil {
		t.Errorf("control: a write of tools/other: %v", err)
	}
}
