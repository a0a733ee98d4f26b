package turnarchive_test

import (
	"path/filepath"
	"sync"
	"testing"

	"turnstile/adapters/turnarchive"
	"turnstile/projections"
)

// TestArchiveConcurrentQueries (review): Apply (evictions, flushes every
// 4,096) while listings, turn reads and checkpoints run; for -race.
func TestArchiveConcurrentQueries(t *testing.T) {
	a, err := turnarchive.Open(filepath.Join(t.TempDir(), "readmodels.archive"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	p := projections.NewWith(projections.Options{RecentTurns: 2, Archive: a})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				switch i {
				case 0:
					for _, v := range p.Turns(projections.TurnFilter{Limit: 50, WorkspaceID: "ws3"}) {
						if _, ok := p.Turn(v.TurnID); !ok {
							t.Errorf("listed %s, not found", v.TurnID)
						}
					}
				case 1:
					p.Turns(projections.TurnFilter{Status: "completed", Limit: 7})
				case 2:
					if _, _, err := p.Checkpoint(); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	endedTurns(t, p, 9000)
	close(stop)
	wg.Wait()
}
