package sandbox

import (
	"strings"
	"testing"
)

// TestAttack139_MvnDirRenamedOverOlderJvmConfig: the check judges a
// .mvn/jvm.config below a root by its own change time (agentItemBelow,
// agentEntry: made or changed by this command), and a .mvn directory's
// only when it is a link. One command writes stage/jvm.config (no item:
// stage is no .mvn); the next renames stage to sub/.mvn: the rename changes
// the directory's change time, not the jvm.config's, so the check keeps
// it, and the person's next mvn in sub runs with its JVM options
// (-XX:OnOutOfMemoryError runs a command). The same rename is what review
// 124 judged "whatever its times" for the glob check (moved).
func TestAttack139_MvnDirRenamedOverOlderJvmConfig(t *testing.T) {
	f := newPlantFixture(t)
	r := sh(t, f.s, "mkdir -p stage sub && echo '-Xmx2m -XX:OnOutOfMemoryError=id' > stage/jvm.config && echo ok")
	attackReport(t, "first command", r)
	if r.ExitCode != 0 || len(r.Quarantined) != 0 || !exists(f.ws+"/stage/jvm.config") {
		t.Fatalf("setup: the first command (%d): %s %+v", r.ExitCode, r.Stderr, r.Quarantined)
	}
	clockPast(t, f.ws+"/stage/jvm.config")
	r = sh(t, f.s, "mv stage sub/.mvn && echo ok")
	attackReport(t, "second command", r)
	if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("the second command failed (%d): %s", r.ExitCode, r.Stderr)
	}
	if exists(f.ws + "/sub/.mvn/jvm.config") {
		t.Errorf("ESCAPED: sub/.mvn/jvm.config, renamed into place with its directory, stays (%q; quarantined %v)", readFileOr(f.ws+"/sub/.mvn/jvm.config"), quarantined(r))
	}
}

// TestAttack139_MvnDirRenamedOverOlderJvmConfigControl: the same write
// and rename in one command: sub/.mvn/jvm.config is set aside.
func TestAttack139_MvnDirRenamedOverOlderJvmConfigControl(t *testing.T) {
	f := newPlantFixture(t)
	r := sh(t, f.s, "mkdir -p stage sub && echo '-Xmx2m -XX:OnOutOfMemoryError=id' > stage/jvm.config && mv stage sub/.mvn && echo ok")
	attackReport(t, "command", r)
	if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("the command failed (%d): %s", r.ExitCode, r.Stderr)
	}
	if exists(f.ws + "/sub/.mvn/jvm.config") {
		t.Errorf("control: sub/.mvn/jvm.config stays (quarantined %v)", quarantined(r))
	}
}
