package sandbox

import (
	"path/filepath"
	"strings"
	"testing"

	"turnstile/domain"
)

// jvm144: JVM options in the protected .mvn/jvm.config (and sbt's
// .jvmopts) that load a native library or class files of the project into
// the JVM every mvn (sbt) run starts, in forms jvmOptionRefs
// (launcherparse.go) does not read:
//
//   - -agentlib:NAME loads libNAME.so from java.library.path (a JVMTI
//     agent: Agent_OnLoad runs before main), and -XrunNAME the same;
//   - -Djava.ext.dirs (Java 8) loads every jar in the directory.
var jvm144 = []struct{ name, file, data, target string }{
	{"agentlibLibraryPath", ".mvn/jvm.config", "-agentlib:prof -Djava.library.path=tools/native\n", "tools/native/libprof.so"},
	{"xrunLibraryPath", ".jvmopts", "-Xrunprof -Djava.library.path=tools/native\n", "tools/native/libprof.so"},
	{"extDirs", ".mvn/jvm.config", "-Djava.ext.dirs=tools/ext\n", "tools/ext/x.jar"},
}

// TestAttack144_JvmOptionFormsWritable: each target is written by a file
// tool and by a command, and stays after the check.
func TestAttack144_JvmOptionFormsWritable(t *testing.T) {
	for _, c := range jvm144 {
		t.Run(c.name, func(t *testing.T) {
			jvmFormCase(t, c.file, c.data, c.target, false)
		})
	}
}

// TestAttack144_JvmOptionFormsWritableControl: the same library named by
// -agentpath:, and a jar by -Xbootclasspath/a:, are kept.
func TestAttack144_JvmOptionFormsWritableControl(t *testing.T) {
	for _, c := range []struct{ name, file, data, target string }{
		{"agentpath", ".mvn/jvm.config", "-agentpath:tools/native/libprof.so\n", "tools/native/libprof.so"},
		{"bootclasspath", ".jvmopts", "-Xbootclasspath/a:tools/ext/x.jar\n", "tools/ext/x.jar"},
	} {
		t.Run(c.name, func(t *testing.T) {
			jvmFormCase(t, c.file, c.data, c.target, true)
		})
	}
}

// jvmFormCase: the target named by the protected file is refused to a file
// tool and to a command (want: refused; control: must be refused).
func jvmFormCase(t *testing.T, file, data, target string, control bool) {
	t.Helper()
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{file: data, target: "original\n", "notes/other.txt": "o\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, file, domain.AccessWrite, false); err == nil {
		t.Fatalf("premise: %s itself is writable", file)
	}
	what := "ESCAPED"
	if control {
		what = "control"
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, target, domain.AccessWrite, false); err == nil {
		t.Errorf("%s (decision): a write of %s, which the protected %s %q has the person's next program load, was allowed", what, target, file, strings.TrimSpace(data))
	}
	r := sh(t, s, "echo 'touch /tmp/pwned144' >> "+target+" && echo wrote")
	if strings.Contains(string(r.Stdout), "wrote") && strings.Contains(readFile(t, filepath.Join(f.ws, target)), "pwned144") {
		t.Errorf("%s (command): a command wrote %s, which the protected %s %q names, and it stayed", what, target, file, strings.TrimSpace(data))
	}
	if control {
		r = sh(t, s, "echo x >> notes/other.txt && echo wrote")
		if !strings.Contains(string(r.Stdout), "wrote") {
			t.Errorf("control: a command could not write notes/other.txt: %s", r.Stderr)
		}
	}
}
