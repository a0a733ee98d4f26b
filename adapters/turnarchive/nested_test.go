package turnarchive_test

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"turnstile/adapters/turnarchive"
	"turnstile/domain"
	"turnstile/domain/turn"
	"turnstile/projections"
)

// TestListingsWhileTheArchiveGrows: turns with distinct profiles (so that
// a listing reads profiles from the archive, past its cache) are archived
// while other goroutines list them and take checkpoints (which write the
// archive, and remap bbolt's file as it grows). A listing that read a
// profile inside its scan's read transaction could wait behind a write
// that waited for that very transaction, for good; the test would then
// hang (go test's timeout). Every listing also lists what it should.
func TestListingsWhileTheArchiveGrows(t *testing.T) {
	if testing.Short() {
		t.Skip("400 turns, listed and checkpointed meanwhile")
	}
	a, err := turnarchive.Open(filepath.Join(t.TempDir(), "readmodels.archive"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	p := projections.NewWith(projections.Options{RecentTurns: 1, Archive: a})
	l := &reviewLog{t: t}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				for _, v := range p.Turns(projections.TurnFilter{Limit: 300}) {
					if v.Status == turn.StatusCompleted && v.Profile.Mode != domain.ModeSupervised {
						t.Errorf("turn %s listed with profile %+v", v.TurnID, v.Profile)
						return
					}
				}
			}
		})
	}
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			if _, _, err := p.Checkpoint(); err != nil {
				t.Error(err)
				return
			}
		}
	})
	for i := range 400 {
		id := fmt.Sprintf("g%05d", i)
		l.add(p, id, &turn.TurnStarted{TurnID: id, WorkspaceID: "ws", ThreadID: "th"})
		l.add(p, id, &turn.ProfileSelected{Profile: domain.TurnPermissionProfileSnapshot{Mode: domain.ModeSupervised, Source: domain.SourceComposer,
			Profile: fmt.Sprintf("profile-%d-%0*d", i, 2048, 0)}})
		l.add(p, id, &turn.TurnCompleted{})
	}
	close(done)
	wg.Wait()
	if n := len(p.Turns(projections.TurnFilter{Limit: 1000})); n != 400 || a.Len() != 399 {
		t.Fatalf("%d turns listed", n)
	}
}
