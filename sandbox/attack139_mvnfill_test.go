package sandbox

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// mvnFillScript makes dir/.mvn/jvm.config (Maven's JVM options for every
// mvn run there: -XX:OnOutOfMemoryError runs a command) and then empty
// files beside it, in batches, until jvm.config is no longer among the
// first 1,024 names the directory lists (ls -U: the order getdents gives)
// or max fillers were made. It prints "fillers=N".
func mvnFillScript(dir string, max int) string {
	return fmt.Sprintf(`mkdir -p %[1]s/.mvn && cd %[1]s/.mvn && echo '-Xmx2m -XX:OnOutOfMemoryError=id' > jvm.config && i=0 &&
while [ $i -lt %[2]d ] && ls -U -A | head -n 1024 | grep -qx jvm.config; do
  end=$((i+500)); while [ $i -lt $end ]; do : > f$i; i=$((i+1)); done
done; echo fillers=$i; cd - >/dev/null`, dir, max)
}

// TestAttack139_MvnJvmConfigPastListingBound: the check after a command
// sets aside a .mvn/jvm.config it made below a root (agentItemBelow), but
// it reads only the first 1,024 names of the .mvn (Readdirnames(1024),
// then judges those): a command that adds empty files to sub/.mvn until
// jvm.config lists past the 1,024th keeps it, and the person's next mvn
// in sub runs the JVM options it names. (Inside an agents' directory more
// than 1,024 entries count as changed; the .mvn's listing has no such
// rule.)
func TestAttack139_MvnJvmConfigPastListingBound(t *testing.T) {
	f := newPlantFixture(t)
	r := sh(t, f.s, mvnFillScript("sub", 30000)+" && echo ok")
	attackReport(t, "command", r)
	if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("the command failed (%d): %s", r.ExitCode, r.Stderr)
	}
	if !exists(f.ws+"/sub/.mvn/jvm.config") && !slices.Contains(quarantined(r), f.ws+"/sub/.mvn/jvm.config") && !slices.Contains(quarantined(r), f.ws+"/sub/.mvn") {
		t.Fatalf("setup: sub/.mvn/jvm.config is gone and not set aside")
	}
	if exists(f.ws + "/sub/.mvn/jvm.config") {
		b, _ := os.ReadFile(f.ws + "/sub/.mvn/jvm.config")
		t.Errorf("ESCAPED: sub/.mvn/jvm.config the command made stays (%q), past the .mvn's first 1,024 names (quarantined %v)", b, quarantined(r))
	}
}

// TestAttack139_MvnJvmConfigPastListingBoundControl: the same command
// with no fillers: its sub/.mvn/jvm.config is set aside.
func TestAttack139_MvnJvmConfigPastListingBoundControl(t *testing.T) {
	f := newPlantFixture(t)
	r := sh(t, f.s, mvnFillScript("sub", 0)+" && echo ok")
	attackReport(t, "command", r)
	if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "fillers=0") {
		t.Fatalf("the command failed (%d): %s", r.ExitCode, r.Stderr)
	}
	if exists(f.ws + "/sub/.mvn/jvm.config") {
		t.Errorf("control: sub/.mvn/jvm.config the command made stays (quarantined %v)", quarantined(r))
	}
}
