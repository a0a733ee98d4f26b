package main

import (
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
)

// TestArchiveAheadOfARestoredStoreAndCheckpoint (review): the operator
// restores the store and its checkpoint from a backup taken together (a
// consistent pair: the checkpoint's mark is in the store), and leaves
// readmodels.archive as it is (the README calls both read-model files safe
// to delete, i.e. caches). The archive is newer than both: it holds the
// summaries of turns that ran after the backup, which the restored store
// does not hold. The checkpoint names the archive's epoch and the archive
// holds at least as many turns as it names, so the start restores from it,
// and the turns that no longer exist are listed forever. Expected: equal
// to a full replay of the restored store.
func TestArchiveAheadOfARestoredStoreAndCheckpoint(t *testing.T) {
	f := newCPFixture(t)
	path := filepath.Join(t.TempDir(), checkpointName)
	f.turns(6)
	p, _ := f.load(path)
	cp := &checkpointer{path: path, proj: p, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if err := cp.save(); err != nil {
		t.Fatal(err)
	}
	// The backup: the store and its checkpoint, together.
	f.store.Close()
	backup := t.TempDir()
	copyTo(t, f.path, filepath.Join(backup, "events.db"))
	copyTo(t, path, filepath.Join(backup, checkpointName))
	f.open()

	// The server goes on: more turns, most of them evicted into the
	// archive, and a checkpoint that syncs it.
	f.turns(9)
	p, _ = f.load(path)
	cp = &checkpointer{path: path, proj: p, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if err := cp.save(); err != nil {
		t.Fatal(err)
	}

	// The store and the checkpoint come back from the backup; the archive
	// stays.
	f.store.Close()
	copyTo(t, filepath.Join(backup, "events.db"), f.path)
	copyTo(t, filepath.Join(backup, checkpointName), path)
	f.open()
	got, logs := f.load(path)
	want := f.replayed()
	if g := exportOf(t, got); g != want {
		t.Errorf("restored store + its checkpoint + a newer archive differs from a full replay (log: %s)\ngot  %s\nwant %s",
			strings.TrimSpace(logs), g, want)
	}
	for _, id := range []string{"t007", "t010"} {
		if _, ok := got.Turn(id); ok {
			t.Errorf("turn %s, which the restored store does not hold, is served from the archive", id)
		}
	}
}
