package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"turnstile/adapters/boltstore"
	"turnstile/adapters/turnarchive"
	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
	"turnstile/projections"
)

// cpFixture is a real embedded store in a temp dir with an engine writing
// supervised turns to it.
type cpFixture struct {
	t     *testing.T
	path  string
	store *boltstore.Store
	eng   *engine.Engine
	n     int
	// archives are the archives of old turns open, by checkpoint path.
	archives map[string]*turnarchive.Archive
}

func newCPFixture(t *testing.T) *cpFixture {
	f := &cpFixture{t: t, path: filepath.Join(t.TempDir(), "events.db")}
	f.open()
	t.Cleanup(func() { f.store.Close() })
	return f
}

func (f *cpFixture) open() {
	st, err := boltstore.Open(f.path, boltstore.Options{})
	if err != nil {
		f.t.Fatal(err)
	}
	f.store, f.eng = st, engine.New(st, engine.Config{})
}

// turns writes n turns, each with an answered and a pending request; all
// but the last end.
func (f *cpFixture) turns(n int) {
	ctx := context.Background()
	for range n {
		f.n++
		id := fmt.Sprintf("t%03d", f.n)
		if _, err := f.eng.Execute(ctx, id, &turn.StartTurn{TurnID: id, WorkspaceID: "ws", ThreadID: "th",
			Profile: &domain.ProfileRequest{Mode: domain.ModeSupervised}, Inputs: turn.Inputs{WorkspaceRoot: "/w"}}); err != nil {
			f.t.Fatal(err)
		}
		for c := range 2 {
			res, err := f.eng.Execute(ctx, id, &turn.EvaluateTool{ToolCallID: fmt.Sprintf("c%d", c),
				Invocation: domain.Invocation{ToolName: "exec_command", Arguments: json.RawMessage(fmt.Sprintf(`{"cmd":"make %d"}`, c))}})
			if err != nil {
				f.t.Fatal(err)
			}
			if c == 0 && res.Approval != nil {
				if _, err := f.eng.Execute(ctx, id, &turn.RespondApproval{RequestID: res.Approval.Request.RequestID, Resolution: domain.ResolutionDeny}); err != nil {
					f.t.Fatal(err)
				}
			}
		}
		if f.n%4 != 0 {
			if _, err := f.eng.Execute(ctx, id, &turn.EndTurn{Status: turn.StatusCompleted}); err != nil {
				f.t.Fatal(err)
			}
		}
	}
}

var cpOpts = projections.Options{RecentTurns: 3}

// replayed is the read models of a full replay of the store.
func (f *cpFixture) replayed() string {
	p := projections.NewWith(cpOpts)
	if err := p.Rebuild(context.Background(), f.store); err != nil {
		f.t.Fatal(err)
	}
	return exportOf(f.t, p)
}

func exportOf(t *testing.T, p *projections.Projector) string {
	b, err := json.Marshal(p.Export())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// load is what serve does at start: open the archive of old turns beside
// the checkpoint (closing the one a previous load opened), restore, then
// replay the tail.
func (f *cpFixture) load(path string) (*projections.Projector, string) {
	if a := f.archives[path]; a != nil {
		a.Close()
	}
	a, err := turnarchive.Open(archivePath(path))
	if err != nil {
		f.t.Fatal(err)
	}
	if f.archives == nil {
		f.archives = map[string]*turnarchive.Archive{}
	}
	f.archives[path] = a
	f.t.Cleanup(func() { a.Close() })
	var logs bytes.Buffer
	opts := cpOpts
	opts.Archive = a
	p, err := loadReadModels(context.Background(), path, opts, f.store, time.Second, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		f.t.Fatal(err)
	}
	if err := p.Rebuild(context.Background(), f.store); err != nil {
		f.t.Fatal(err)
	}
	return p, logs.String()
}

// TestCheckpointCrashBeforeRename: a crash after the new checkpoint's
// temporary file was written and synced but before the rename leaves the
// previous checkpoint in force; the start restores it, replays the tail,
// and equals a full replay. A store restored from a backup older than the
// checkpoint makes the start discard it and replay everything.
func TestCheckpointCrashBeforeRename(t *testing.T) {
	f := newCPFixture(t)
	path := filepath.Join(t.TempDir(), checkpointName)
	f.turns(6)
	p, _ := f.load(path)
	cp := &checkpointer{path: path, proj: p, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if err := cp.save(); err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// A backup of the store as it is at the checkpoint.
	f.store.Close()
	backup := filepath.Join(t.TempDir(), "backup.db")
	copyTo(t, f.path, backup)
	f.open()

	// The same server goes on: seven more turns (most of them evicted
	// into the archive, which the next checkpoint syncs).
	f.turns(7)
	newer, _ := f.load(path)
	b, _, err := newer.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := writeTemp(path, b); err != nil { // the crash: no rename
		t.Fatal(err)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, old) {
		t.Fatal("the checkpoint changed before the rename")
	}
	got, logs := f.load(path)
	if !strings.Contains(logs, "restored from a checkpoint") {
		t.Fatalf("the previous checkpoint was not used:\n%s", logs)
	}
	if got.Applied() <= p.Applied() {
		t.Fatalf("no tail replayed: %d events, the checkpoint had %d", got.Applied(), p.Applied())
	}
	if want := f.replayed(); exportOf(t, got) != want {
		t.Fatalf("checkpoint + tail differs from a full replay:\n%s\n%s", exportOf(t, got), want)
	}

	// The rename completes; then the store goes back to the backup.
	if err := commitTemp(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
	f.store.Close()
	copyTo(t, backup, f.path)
	f.open()
	got, logs = f.load(path)
	if !strings.Contains(logs, "checkpoint discarded") {
		t.Fatalf("a checkpoint newer than the store was used:\n%s", logs)
	}
	if want := f.replayed(); exportOf(t, got) != want {
		t.Fatalf("after discarding, the read models differ from a full replay of the backup")
	}
	if got.Position() == (eventstore.Position{}) || got.Applied() != p.Applied() {
		t.Fatalf("the backup's read models: %d events, want %d", got.Applied(), p.Applied())
	}
}

func copyTo(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestCheckpointMarkMustMatchTheStore: a checkpoint is trusted only when
// the store holds its last event with the same id, at the same position,
// and with the same link in the stream's hash chain; each differing part
// alone makes it stale. The true mark is the control. (The engine's event
// ids differ between stores, so a copied checkpoint fails on the id first;
// the chain link ties the mark to the stored content even where an id
// would coincide.)
func TestCheckpointMarkMustMatchTheStore(t *testing.T) {
	f := newCPFixture(t)
	f.turns(3)
	p, _ := f.load(filepath.Join(t.TempDir(), "none"))
	mark := p.Mark()
	if mark.PrevHash == "" {
		t.Fatal("the mark has no chain link (its event is the first of its stream?)")
	}
	if err := checkMark(context.Background(), f.store, mark, time.Second); err != nil {
		t.Fatalf("control: %v", err)
	}
	for name, m := range map[string]projections.Mark{
		"id":        {Position: mark.Position, Stream: mark.Stream, Revision: mark.Revision, EventID: uuid.New(), PrevHash: mark.PrevHash},
		"position":  {Position: eventstore.Position{Commit: mark.Position.Commit + 1, Prepare: mark.Position.Prepare + 1}, Stream: mark.Stream, Revision: mark.Revision, EventID: mark.EventID, PrevHash: mark.PrevHash},
		"chain":     {Position: mark.Position, Stream: mark.Stream, Revision: mark.Revision, EventID: mark.EventID, PrevHash: strings.Repeat("0", 64)},
		"revision":  {Position: mark.Position, Stream: mark.Stream, Revision: mark.Revision + 1, EventID: mark.EventID, PrevHash: mark.PrevHash},
		"no stream": {Position: mark.Position, Stream: "turn-nope", Revision: mark.Revision, EventID: mark.EventID, PrevHash: mark.PrevHash},
	} {
		if err := checkMark(context.Background(), f.store, m, time.Second); !errors.Is(err, errStaleCheckpoint) {
			t.Errorf("another %s: %v, want errStaleCheckpoint", name, err)
		}
	}
}

// TestCheckpointOfAnEarlierVersionMovesIntoTheArchive: a checkpoint that
// carries its old turns' summaries (written before the archive, or by a
// projector without one) is restored into the archive beside it, which it
// empties first; the next checkpoint names the archive instead and is a
// fraction of the size; both starts equal a full replay. The checkpoint
// the archive's epoch no longer matches (the archive was replaced) is
// discarded, and the start replays everything.
func TestCheckpointOfAnEarlierVersionMovesIntoTheArchive(t *testing.T) {
	f := newCPFixture(t)
	f.turns(40)
	inline := projections.NewWith(cpOpts) // its old turns in memory
	if err := inline.Rebuild(context.Background(), f.store); err != nil {
		t.Fatal(err)
	}
	b, _, err := inline.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), checkpointName)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	// The archive beside it holds a stale turn of another replay.
	stale, err := turnarchive.Open(archivePath(path))
	if err != nil {
		t.Fatal(err)
	}
	if err := stale.Put("t999", "ws", "completed", []byte("stale"), nil); err != nil {
		t.Fatal(err)
	}
	stale.Close()

	p, logs := f.load(path)
	if !strings.Contains(logs, "restored from a checkpoint") {
		t.Fatalf("the earlier checkpoint was not used:\n%s", logs)
	}
	if want := f.replayed(); exportOf(t, p) != want {
		t.Fatalf("restored from the earlier checkpoint + tail differs from a full replay:\n%s\n%s", exportOf(t, p), want)
	}
	if _, ok := p.Turn("t999"); ok {
		t.Fatal("the stale turn in the archive is listed")
	}
	// No event since: the checkpointer serve makes writes the next
	// checkpoint anyway.
	cp := newCheckpointer(path, p, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := cp.save(); err != nil {
		t.Fatal(err)
	}
	now, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(now, []byte("turnstile-readmodels-checkpoint 2 ")) || len(now) >= len(b) {
		t.Fatalf("the next checkpoint: %d bytes (the earlier one %d), header %q", len(now), len(b), now[:bytes.IndexByte(now, '\n')])
	}
	f.turns(2)
	p, logs = f.load(path)
	if !strings.Contains(logs, "restored from a checkpoint") {
		t.Fatalf("the checkpoint naming the archive was not used:\n%s", logs)
	}
	if want := f.replayed(); exportOf(t, p) != want {
		t.Fatal("restored over the archive + tail differs from a full replay")
	}

	// The archive is replaced (deleted, say): a new epoch.
	f.archives[path].Close()
	delete(f.archives, path)
	if err := os.Remove(archivePath(path)); err != nil {
		t.Fatal(err)
	}
	p, logs = f.load(path)
	if !strings.Contains(logs, "checkpoint discarded") || !strings.Contains(logs, "archive") {
		t.Fatalf("a checkpoint naming another archive was used:\n%s", logs)
	}
	if want := f.replayed(); exportOf(t, p) != want {
		t.Fatal("the full replay after discarding differs")
	}
}
