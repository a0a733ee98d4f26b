package engine_test

import "os"

// tempDir is a directory for benchmark fixtures shared across runs of one
// test binary (removed by the OS's temp cleaning, not by the test).
func tempDir() (string, error) { return os.MkdirTemp("", "turnstile-bench-") }
