package main

import (
	"slices"
	"testing"

	"turnstile/sandbox"
)

// TestDataDirMarksNameTheStore: `turnstile sandbox` denies its command a
// default data directory that holds a server's data, told by
// sandbox.DataDirMarks: the names serve writes there (its token, its
// embedded store's file or directory) must be among them.
func TestDataDirMarksNameTheStore(t *testing.T) {
	for _, n := range []string{"token", logDirName, boltFileName} {
		if !slices.Contains(sandbox.DataDirMarks, n) {
			t.Errorf("%q, which serve writes in its data directory, is not in sandbox.DataDirMarks %v", n, sandbox.DataDirMarks)
		}
	}
}
