package sandbox

import (
	"testing"
	"time"
)

// TestLeanGateAnswersEveryCall: SandboxCommand calls leanCLIGate before each
// Run, and runs a second time when the full probe finds other features than
// the quick one; the gate answers that second call as it answered the first
// (a matched fingerprint returns, a mismatch falls back) instead of waiting
// for a second comparison that never comes. The first call is the control.
func TestLeanGateAnswersEveryCall(t *testing.T) {
	for _, match := range []bool{true, false} {
		same := make(chan bool, 1)
		same <- match
		fellBack := 0
		gate := leanGate(same, func() { fellBack++ })
		done := make(chan struct{})
		go func() {
			gate()
			gate()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("match %v: the second call of the gate never returned", match)
		}
		if want := map[bool]int{true: 0, false: 2}[match]; fellBack != want {
			t.Fatalf("match %v: fell back %d times, want %d", match, fellBack, want)
		}
	}
}
