package engine_test

import (
	"os"
	"sync"
)

// tempDirs are the fixture directories made by tempDir; TestMain removes
// them when the test binary's run ends, so nothing is left in the OS's temp
// directory.
var (
	tempMu   sync.Mutex
	tempDirs []string
)

// tempDir is a directory for benchmark fixtures shared by the benchmarks of
// one test binary run (a testing.B's TempDir would be removed after each).
func tempDir() (string, error) {
	d, err := os.MkdirTemp("", "turnstile-bench-")
	if err == nil {
		tempMu.Lock()
		tempDirs = append(tempDirs, d)
		tempMu.Unlock()
	}
	return d, err
}

// removeTempDirs removes every directory tempDir made.
func removeTempDirs() {
	tempMu.Lock()
	defer tempMu.Unlock()
	for _, d := range tempDirs {
		os.RemoveAll(d)
	}
	tempDirs = nil
}
