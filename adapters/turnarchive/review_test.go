package turnarchive_test

import (
	"encoding/json"
	"os"
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

// reviewLog is an event log in memory: what the projector is fed, and the
// streams a Restore folds its held turns from.
type reviewLog struct {
	t       *testing.T
	pos     uint64
	events  []*turn.Event
	version map[string]int64
}

func (l *reviewLog) add(p *projections.Projector, id string, pl turn.Payload) {
	l.t.Helper()
	if l.version == nil {
		l.version = map[string]int64{}
	}
	l.pos++
	v := l.version[id]
	l.version[id] = v + 1
	e := &turn.Event{ID: uuid.New(), Type: pl.EventType(), SchemaVersion: 1, TurnID: id,
		OccurredAt: time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC).Add(time.Duration(l.pos) * time.Second),
		Actor:      domain.Actor{Name: "agent", Role: "runtime"}, Payload: pl, Version: v,
		Position: eventstore.Position{Commit: l.pos, Prepare: l.pos}, Size: 200}
	l.events = append(l.events, e)
	if p != nil {
		if err := p.Apply(e); err != nil {
			l.t.Fatal(err)
		}
	}
}

func (l *reviewLog) ended(p *projections.Projector, id, ws string) {
	l.add(p, id, &turn.TurnStarted{TurnID: id, WorkspaceID: ws, ThreadID: "th"})
	l.add(p, id, &turn.ProfileSelected{Profile: domain.TurnPermissionProfileSnapshot{Mode: domain.ModeSupervised, Source: domain.SourceComposer}})
	l.add(p, id, &turn.ExecStarted{ToolCallID: "c1"})
	l.add(p, id, &turn.TurnCompleted{})
}

func (l *reviewLog) reader() projections.TurnReader {
	return func(id string, apply func(*turn.Event) error) error {
		for _, e := range l.events {
			if e.TurnID == id {
				if err := apply(e); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

func (l *reviewLog) replayed() string {
	p := projections.NewWith(projections.Options{RecentTurns: 1})
	for _, e := range l.events {
		if err := p.Apply(e); err != nil {
			l.t.Fatal(err)
		}
	}
	return listing(l.t, p)
}

func listing(t *testing.T, p *projections.Projector) string {
	b, err := json.Marshal(p.Turns(projections.TurnFilter{}))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestArchiveOlderThanItsCheckpoint (review): the archive file is an older
// copy of the very archive the checkpoint names (same epoch, as many turns:
// a data directory copied file by file while the server ran, the archive
// before the checkpoint; or a backup of it restored). Between the two, an
// archived turn's summary moved (an exec.finished after the turn ended
// and was evicted). Restore checks only the epoch and Len >= Old, so it
// accepts the older archive, and the tail after the checkpoint does not
// hold the event: the summary stays stale for good. Expected: refused
// (and a full replay), like an archive of another epoch.
func TestArchiveOlderThanItsCheckpoint(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "readmodels.archive")
	a, err := turnarchive.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	l := &reviewLog{t: t}
	p := projections.NewWith(projections.Options{RecentTurns: 1, Archive: a})
	l.ended(p, "x", "ws")
	l.ended(p, "y", "ws")                        // x is evicted into the archive
	if _, _, err := p.Checkpoint(); err != nil { // syncs the archive
		t.Fatal(err)
	}
	older, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l.add(p, "x", &turn.ExecFinished{ToolCallID: "c1", ExitCode: 3}) // folded into x's archived summary
	cp, _, err := p.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	want := listing(t, p)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if want != l.replayed() {
		t.Fatalf("control: the running projector differs from a full replay:\n%s\n%s", want, l.replayed())
	}

	if err := os.WriteFile(path, older, 0o600); err != nil {
		t.Fatal(err)
	}
	a, err = turnarchive.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	q := projections.NewWith(projections.Options{RecentTurns: 1, Archive: a})
	if _, err := q.Restore(cp, l.reader()); err != nil {
		return // refused: the start replays everything
	}
	if got := listing(t, q); got != want {
		t.Errorf("restored over an older copy of its archive, the listing is stale:\ngot  %s\nwant %s", got, want)
	}
}

// TestDistinctProfilesOfOldTurnsLeaveMemory (review): the caller chooses a
// turn's profile lists (allowed_paths and the tool lists, up to 64 KiB
// each), and every distinct profile of an old turn stays interned in the
// projector's memory for good (Projector.profiles, loaded whole from the
// archive at each start by loadProfiles), though the turn itself went to
// disk. An agent holding the runtime's credential starts and ends turns
// each naming two unique paths of 4 KiB (within the API's bounds): the heap grows by about that much
// per old turn, the growth the archive was to remove (issue 15: memory
// follows what is live). Expected: a few bytes per old turn, as for turns
// sharing one profile (TestOldTurnsLeaveMemory).
func TestDistinctProfilesOfOldTurnsLeaveMemory(t *testing.T) {
	a, err := turnarchive.Open(filepath.Join(t.TempDir(), "readmodels.archive"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	p := projections.NewWith(projections.Options{RecentTurns: 4, Archive: a})
	l := &reviewLog{t: t}
	big := make([]byte, 3900) // paths of the API's bounds (4096 each, 256 of them)
	for i := range big {
		big[i] = 'a'
	}
	turns := func(from, n int) {
		for i := from; i < from+n; i++ {
			id := uuid.NewString()
			prof := domain.ResolveProfile(&domain.ProfileRequest{Mode: domain.ModeSupervised,
				AllowedPaths: []string{"/w/" + string(big) + "/" + id, "/v/" + string(big) + "/" + id}}, domain.SourceComposer)
			l.add(p, id, &turn.TurnStarted{TurnID: id, WorkspaceID: "ws", ThreadID: "th"})
			l.add(p, id, &turn.ProfileSelected{Profile: prof})
			l.add(p, id, &turn.TurnCompleted{})
		}
		l.events = nil // the log's memory is not the projector's
		if err := a.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	turns(0, 200)
	h0 := heap()
	turns(200, 2000)
	h1 := heap()
	runtime.KeepAlive(p)
	if v, ok := p.Turn(p.Turns(projections.TurnFilter{Limit: 1})[0].TurnID); !ok || len(v.Profile.EffectivePolicy.AllowedPaths) != 2 || len(v.Profile.EffectivePolicy.AllowedPaths[0]) < 3900 {
		t.Fatalf("control: the old turn's profile is not the one selected: %+v", v.Profile.EffectivePolicy.AllowedPaths)
	}
	per := float64(int64(h1)-int64(h0)) / 2000
	t.Logf("heap per old turn with its own 8 KiB profile (two 4 KiB paths): %.0f bytes", per)
	if per > 512 {
		t.Errorf("each old turn with a distinct profile keeps %.0f bytes of heap", per)
	}
}
