package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// nestedLauncher140: a launcher file in a subdirectory of the workspace (a
// monorepo's package: yarn, dotnet and cargo read the nearest one above
// the directory a person runs them in, as the root's) and what it names
// beside it.
var nestedLauncher140 = []struct{ file, data, target string }{
	{".yarnrc.yml", "yarnPath: .yarn/releases/yarn-4.5.0.cjs\n", ".yarn/releases/yarn-4.5.0.cjs"},
	{"global.json", `{"sdk":{"version":"10.0.100","paths":[".dotnet","$host$"]}}` + "\n", ".dotnet/sdk/10.0.100/dotnet.dll"},
	{".cargo/config.toml", "[build]\nrustc-wrapper = \"tools/wrap.sh\"\n", "tools/wrap.sh"},
	{".mvn/jvm.config", "-javaagent:tools/agent.jar\n", "tools/agent.jar"},
}

// TestAttack140_NestedLauncherFileTargetWritable: review 139's fix keeps
// read-only what the root's launcher file names, not what the same file
// in a subdirectory names. sub/.yarnrc.yml is itself refused to a write
// (readAtAnyDepth: yarn run in sub reads it), but the release its
// yarnPath names, sub/.yarn/releases/yarn-4.5.0.cjs, is written by a file
// tool and by a command, kept by the check: the person's next yarn in sub
// runs the agent's code. Control:
// TestAttack140_NestedLauncherFileTargetWritableControl.
func TestAttack140_NestedLauncherFileTargetWritable(t *testing.T) {
	for _, c := range nestedLauncher140 {
		t.Run(strings.ReplaceAll(c.file, "/", "_"), func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{"sub/" + c.file: c.data, "sub/" + c.target: "original\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, "sub/"+c.file, domain.AccessWrite, false); err == nil {
				t.Fatalf("premise: sub/%s itself is writable", c.file)
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, "sub/"+c.target, domain.AccessWrite, false); err == nil {
				t.Errorf("ESCAPED (decision): a write of sub/%s, which sub/%s names, was allowed", c.target, c.file)
			}
			r := sh(t, s, "echo planted-a140 >> sub/"+c.target)
			if strings.Contains(readFileOr(f.ws+"/sub/"+c.target), "planted-a140") {
				t.Errorf("ESCAPED (command): sub/%s holds the command's bytes (exit %d, set aside %v)", c.target, r.ExitCode, r.Quarantined)
			}
		})
	}
}

// TestAttack140_NestedLauncherFileTargetWritableControl: the same file at
// the workspace root keeps what it names read-only to both.
func TestAttack140_NestedLauncherFileTargetWritableControl(t *testing.T) {
	for _, c := range nestedLauncher140 {
		t.Run(strings.ReplaceAll(c.file, "/", "_"), func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{c.file: c.data, c.target: "original\n", "sub/notes.txt": "n\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, c.target, domain.AccessWrite, false); err == nil {
				t.Errorf("control: a write of %s, which the root's %s names, was allowed", c.target, c.file)
			}
			r := sh(t, s, "echo planted-a140 >> "+c.target+"; echo mine >> sub/notes.txt")
			if strings.Contains(readFileOr(f.ws+"/"+c.target), "planted-a140") {
				t.Errorf("control: %s holds the command's bytes", c.target)
			}
			if readFileOr(f.ws+"/sub/notes.txt") != "n\nmine\n" {
				t.Errorf("control: the command could not write sub/notes.txt: %d %s", r.ExitCode, r.Stderr)
			}
		})
	}
}
