package sandbox

import "testing"

// TestEarlyFingerprintIsTheFingerprint: what the early entry passes on (it
// computes it before any package is initialised) is the fingerprint the
// lean program compares it with; it is empty only in a build that cannot
// compute it before initialisation (embedHashesKnown), where the entry
// leaves the command line to the turnstile binary.
func TestEarlyFingerprintIsTheFingerprint(t *testing.T) {
	got, want := earlyFingerprint(), fingerprint()
	if !embedHashesKnown {
		if got != "" {
			t.Fatalf("earlyFingerprint %q in a build that reads the files", got)
		}
		return
	}
	if got != want || len(got) != 16 {
		t.Fatalf("earlyFingerprint %q, fingerprint %q", got, want)
	}
}
