package turnarchive_test

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/google/uuid"

	"turnstile/adapters/turnarchive"
	"turnstile/domain"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
	"turnstile/projections"
)

// endedTurns feeds p n turns that start, select a profile and complete,
// after those it was fed.
func endedTurns(t *testing.T, p *projections.Projector, n int) {
	t.Helper()
	base := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	pos := p.Position().Commit
	for i := range n {
		id := fmt.Sprintf("turn-%06d-%s", i, uuid.NewString())
		for v, pl := range []turn.Payload{
			&turn.TurnStarted{TurnID: id, WorkspaceID: fmt.Sprintf("ws%d", i%7), ThreadID: "thread-" + id},
			&turn.ProfileSelected{Profile: domain.TurnPermissionProfileSnapshot{Mode: domain.ModeSupervised, Source: domain.SourceComposer}},
			&turn.TurnCompleted{},
		} {
			pos++
			e := turn.Event{ID: uuid.New(), Type: pl.EventType(), SchemaVersion: 1, TurnID: id, OccurredAt: base.Add(time.Duration(pos) * time.Millisecond),
				Actor: domain.Actor{Name: "agent", Role: "runtime"}, Payload: pl, Version: int64(v), Position: eventstore.Position{Commit: pos, Prepare: pos}, Size: 200}
			if err := p.Apply(&e); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestOldTurnsLeaveMemory: a projector over the archive on disk holds no
// more in memory after 40,000 old turns than after 4,000 (the records
// gathered before a write are bounded), while one keeping its old turns in
// memory (the control) grows with them; both list the same turns.
func TestOldTurnsLeaveMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("40,000 turns")
	}
	a, err := turnarchive.Open(filepath.Join(t.TempDir(), "readmodels.archive"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	// Measured with nothing gathered for the next write (at most
	// flushEvery records, whatever the number of old turns).
	growth := func(p *projections.Projector) (small, large uint64) {
		endedTurns(t, p, 4000)
		a.Sync()
		h0 := heap()
		endedTurns(t, p, 36000)
		a.Sync()
		h1 := heap()
		runtime.KeepAlive(p)
		return h0, h1
	}
	m0, m1 := growth(projections.NewWith(projections.Options{RecentTurns: 16}))
	d := projections.NewWith(projections.Options{RecentTurns: 16, Archive: a})
	d0, d1 := growth(d)
	memPer := float64(int64(m1)-int64(m0)) / 36000
	diskPer := float64(int64(d1)-int64(d0)) / 36000
	t.Logf("heap per old turn: %.0f bytes in memory, %.0f bytes with the archive on disk", memPer, diskPer)
	if memPer < 100 {
		t.Fatalf("control: old turns in memory cost %.0f bytes each", memPer)
	}
	if diskPer > 10 {
		t.Fatalf("with the archive on disk each old turn still costs %.0f bytes of heap", diskPer)
	}
	if a.Len() != 40000-16 || len(d.Turns(projections.TurnFilter{WorkspaceID: "ws3", Limit: 1000})) != 1000 {
		t.Fatalf("archive holds %d turns, ws3 lists %d", a.Len(), len(d.Turns(projections.TurnFilter{WorkspaceID: "ws3", Limit: 1000})))
	}
}
