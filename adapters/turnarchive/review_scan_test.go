package turnarchive_test

import (
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"turnstile/adapters/turnarchive"
	"turnstile/projections"
)

// TestListingCostFollowsEveryOldTurn (review): GET /v1/turns?limit=0 is
// accepted (the API's bound is 0..1000, and 0 means no limit: Turns with
// Limit 0), and lists every turn ever run: with the archive on disk it
// decodes every record into a TurnView of 1 KiB, all in one slice, under
// the projector's read lock (every Apply, and behind the waiting writer
// every other query, waits for it), then encodes them into one response.
// Any credential that may list turns (the runtime's) can ask it in a loop:
// memory and lock time per request follow every turn ever run, which the
// archive was to end (issue 15). status=failed&limit=1 (no turn failed)
// likewise reads and decodes every record under the lock. Expected: a
// listing costs a page (limit=0 refused or taken as the default).
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
	measure := func(f projections.TurnFilter) (time.Duration, uint64, int) {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		start := time.Now()
		got := len(p.Turns(f))
		d := time.Since(start)
		runtime.ReadMemStats(&m1)
		return d, m1.TotalAlloc - m0.TotalAlloc, got
	}
	pd, pa, _ := measure(projections.TurnFilter{Limit: 100})
	rd, ra, _ := measure(projections.TurnFilter{Status: "failed", Limit: 1})
	ad, aa, an := measure(projections.TurnFilter{Limit: 0})
	t.Logf("%d old turns: a page of 100 %s %d KiB; status=failed&limit=1 %s %d KiB; limit=0 %s %d MiB (%d turns)",
		n, pd, pa>>10, rd, ra>>10, ad, aa>>20, an)
	done := make(chan time.Duration)
	go func() {
		time.Sleep(5 * time.Millisecond)
		start := time.Now()
		endedTurns(t, p, 1)
		done <- time.Since(start)
	}()
	p.Turns(projections.TurnFilter{Limit: 0})
	t.Logf("an Apply during a limit=0 listing waited %s", <-done)
	if an > 1000 || aa > 64<<20 {
		t.Errorf("one listing (limit=0) gave %d turns and allocated %d MiB in %s", an, aa>>20, ad)
	}
	if rd > 50*pd && rd > 20*time.Millisecond {
		t.Errorf("status=failed&limit=1 costs %s, a page %s", rd, pd)
	}
}
