package logstore

import (
	"path/filepath"
	"testing"

	"turnstile/adapters/storetest"
	"turnstile/domain/eventstore"
)

// openTemp opens a new store in a fresh temporary directory.
func openTemp(t testing.TB, opts Options) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "events"), opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) eventstore.Store { return openTemp(t, Options{}) })
}

// TestContractSmallBatches runs the suite with batches of one and two, so
// that the per-request paths of the writer are exercised at the boundary.
func TestContractSmallBatches(t *testing.T) {
	for _, n := range []int{1, 2} {
		storetest.Run(t, func(t *testing.T) eventstore.Store { return openTemp(t, Options{MaxBatch: n}) })
	}
}

// TestContractSmallSegments runs the suite with segments of 4 KiB, so that
// reads and appends cross segment boundaries all the time.
func TestContractSmallSegments(t *testing.T) {
	storetest.Run(t, func(t *testing.T) eventstore.Store { return openTemp(t, Options{SegmentSize: 4 << 10}) })
}
