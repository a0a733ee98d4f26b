//go:build knownlimits

package sandbox

import (
	"strings"
	"testing"
)

// TestAttack144_NestedLauncherLastComponentCase (review 144, low: on a
// case-insensitive file system, where the person's tool reads the file
// by its own spelling). The check after a command sets aside a launcher
// file of readAtAnyDepth the command made below the root in any case
// (domain.FoldEqual: src/.RPROFILE, sub/directory.build.rsp, d/Tools/bazel,
// e/.Mvn/jvm.config are set aside), but for an item of two components
// (tools/bazel, review 142's, .mvn/jvm.config, .cargo/config.toml) only
// when the file's own name is in the item's case: a/TOOLS/BAZEL,
// f/tools/BAZEL, b/.MVN/JVM.CONFIG and c/.CARGO/CONFIG.TOML stay. On a
// case-insensitive directory (ext4 or tmpfs casefold, a vfat, exFAT or
// SMB mount) Bazelisk runs tools/bazel, Maven reads .mvn/jvm.config and
// cargo reads .cargo/config.toml by them.
//
// Control (TestAttack144_NestedLauncherLastComponentCaseControl): the
// same files with the directory's case changed and the file's kept are
// set aside.
func TestAttack144_NestedLauncherLastComponentCase(t *testing.T) {
	nestedCaseCase(t, []string{"b/.MVN/JVM.CONFIG", "c/.CARGO/CONFIG.TOML"}) // (tools/bazel left the list)
}

func TestAttack144_NestedLauncherLastComponentCaseControl(t *testing.T) {
	nestedCaseCase(t, []string{"e/.Mvn/jvm.config", "g/.CARGO/config.toml", "h/sub/directory.build.rsp"})
}

func nestedCaseCase(t *testing.T, files []string) {
	t.Helper()
	f := newPlantFixture(t)
	var script []string
	for _, p := range files {
		script = append(script, "mkdir -p "+p[:strings.LastIndex(p, "/")]+" && echo '-XX:OnOutOfMemoryError=id' > "+p)
	}
	r := sh(t, f.s, strings.Join(append(script, "echo ok"), " && "))
	attackReport(t, "command", r)
	if !strings.Contains(string(r.Stdout), "ok") {
		t.Fatalf("premise: the command failed (%d): %s", r.ExitCode, r.Stderr)
	}
	got := quarantined(r)
	for _, p := range files {
		set := false
		for _, q := range got {
			if q == f.ws+"/"+p {
				set = true
			}
		}
		if !set || exists(f.ws+"/"+p) {
			t.Errorf("ESCAPED: %s, a launcher file of readAtAnyDepth in another case, made by the command, was not set aside (set aside: %v)", p, got)
		}
	}
}
