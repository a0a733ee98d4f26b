package turnarchive_test

import (
	"path/filepath"
	"runtime"
	"testing"

	"turnstile/adapters/turnarchive"
	"turnstile/projections"
)

// TestListingCostFollowsEveryOldTurn (review): a listing filtered by a
// status no old turn has (status=failed&limit=1 where none failed) read and
// decoded every record under the projector's read lock: 40 MiB allocated
// over 100,000 old turns, so any credential that may list turns could make
// each request cost every turn ever run. The archive now reads a status
// through its index: such a listing allocates about what a page does.
// (GET /v1/turns?limit=0, which listed every turn, is refused by the API:
// TestTurnListingLimitIsAPage in tests.) Allocation, not time, is
// compared: a timed assertion would measure the machine.
func TestListingCostFollowsEveryOldTurn(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000 turns")
	}
	a, err := turnarchive.Open(filepath.Join(t.TempDir(), "readmodels.archive"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	p := projections.NewWith(projections.Options{RecentTurns: 16, Archive: a})
	const n = 100000
	endedTurns(t, p, n)
	a.Sync()
	measure := func(f projections.TurnFilter) (uint64, int) {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		got := len(p.Turns(f))
		runtime.ReadMemStats(&m1)
		return m1.TotalAlloc - m0.TotalAlloc, got
	}
	pa, pn := measure(projections.TurnFilter{Limit: 100})
	ra, rn := measure(projections.TurnFilter{Status: "failed", Limit: 1})
	ca, cn := measure(projections.TurnFilter{Status: "completed", WorkspaceID: "ws3", Limit: 100})
	t.Logf("%d old turns: a page of 100 %d KiB; status=failed&limit=1 %d KiB; completed in ws3, a page %d KiB", n, pa>>10, ra>>10, ca>>10)
	if pn != 100 || rn != 0 || cn != 100 {
		t.Fatalf("control: listed %d, %d, %d; want 100, 0, 100", pn, rn, cn)
	}
	if ra > 1<<20 || ca > 4*pa {
		t.Errorf("a status no old turn has allocated %d KiB, a page by workspace and status %d KiB (a page: %d KiB)", ra>>10, ca>>10, pa>>10)
	}
}
