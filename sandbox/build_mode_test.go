package sandbox

import (
	"runtime/debug"
	"testing"
)

// TestBuildMode records how this test binary was built: the enforcement
// tests pass both with CGO_ENABLED=0 and with cgo (and -race), because the
// helper applies every per-thread restriction to one locked OS thread and
// execs from it (no psx, no AllThreadsSyscall).
func TestBuildMode(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Skip("no build info")
	}
	for _, s := range bi.Settings {
		if s.Key == "CGO_ENABLED" || s.Key == "-race" {
			t.Logf("%s=%s", s.Key, s.Value)
		}
	}
}
