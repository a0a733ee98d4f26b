package sandbox

import (
	"os"
	"runtime/debug"
	"testing"

	"turnstile/domain"
)

// TestBuildMode checks that enforcement holds in the build mode of this test
// binary: CI runs the package with CGO_ENABLED=0, with cgo, and with -race,
// and the helper must apply every per-thread restriction to one locked OS
// thread and exec from it (no psx, no AllThreadsSyscall) in each of them.
// A write outside the workspace is refused (the attack) while one inside it
// works (the control), so the check cannot pass by accident.
func TestBuildMode(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("the test binary carries no build info")
	}
	var settings []string
	for _, s := range bi.Settings {
		if s.Key == "CGO_ENABLED" || s.Key == "-race" {
			settings = append(settings, s.Key+"="+s.Value)
		}
	}
	f := requireKernel(t, false)
	base := tempWorkspace(t)
	ws, outside := base+"/ws", base+"/outside"
	for _, d := range []string{ws, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	if r := sh(t, s, "echo in > inside.txt"); r.ExitCode != 0 || readFile(t, ws+"/inside.txt") != "in\n" {
		t.Fatalf("build %v: a write in the workspace failed: %+v", settings, r)
	}
	if r := sh(t, s, "echo out > "+outside+"/escaped.txt"); r.ExitCode == 0 || exists(outside+"/escaped.txt") {
		t.Fatalf("build %v: a write outside the workspace succeeded: %+v", settings, r)
	}
}
