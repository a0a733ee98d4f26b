package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"turnstile/adapters/boltstore"
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

// load is what serve does at start: restore, then replay the tail.
func (f *cpFixture) load(path string) (*projections.Projector, string) {
	var logs bytes.Buffer
	p := loadReadModels(context.Background(), path, cpOpts, f.store, time.Second, slog.New(slog.NewTextHandler(&logs, nil)))
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

	f.turns(7)
	newer, _ := f.load(filepath.Join(t.TempDir(), "none"))
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
