package logstore

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"turnstile/adapters/internal/embeddedtest"
)

// kind is this store for the suite shared with the bbolt store.
var kind = embeddedtest.Kind{
	File: "events",
	Open: func(path string) (embeddedtest.Store, error) { return embeddedtest.Opened(Open(path, Options{})) },
	OpenShortLock: func(path string) (embeddedtest.Store, error) {
		return embeddedtest.Opened(Open(path, Options{LockTimeout: 50 * time.Millisecond}))
	},
	CommitBatch: commitBatch,
	ErrInvalid:  ErrInvalid,
	ErrLocked:   ErrLocked,
}

// commitBatch hands batch to the writer's commitBatch as one frame.
func commitBatch(ctx context.Context, s embeddedtest.Store, batch []embeddedtest.Append) ([]embeddedtest.Result, error) {
	return embeddedtest.Batch(batch,
		func(a embeddedtest.Append) (*appendReq, error) {
			return newAppendReq(ctx, a.Stream, a.Expected, a.Events)
		},
		func(reqs []*appendReq) { s.(*Store).commitBatch(reqs, &frame{}) },
		func(r *appendReq) embeddedtest.Result {
			resp := <-r.done
			return embeddedtest.Result{Res: resp.res, Err: resp.err}
		})
}

func TestEmbedded(t *testing.T) { embeddedtest.Run(t, kind) }

// crash uses small segments and frequent index checkpoints, so that kills
// also land around a segment roll (a new file and a directory fsync) and a
// background checkpoint, and reopens load a checkpoint and scan the log
// after it.
var crash = embeddedtest.Crash{
	Env:  "LOGSTORE_CRASH_CHILD",
	Open: func(path string) (embeddedtest.Store, error) { return embeddedtest.Opened(Open(path, crashOptions)) },
	Reopened: func(t *testing.T, es embeddedtest.Store) {
		s := es.(*Store)
		t.Logf("reopened with %d of %d segments from the index checkpoint (position %d)", s.fromCheckpoint, len(s.segs), s.checkpointed.Load())
	},
	Finally: func(t *testing.T, path string) {
		segs, err := listSegments(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(segs) < 2 {
			t.Fatalf("%d segment(s): the rounds never rolled a segment", len(segs))
		}
		if _, err := os.Stat(filepath.Join(path, checkpointName)); err != nil {
			t.Fatalf("no index checkpoint was written during the rounds: %v", err)
		}
	},
}

var crashOptions = Options{SegmentSize: 64 << 10, CheckpointEvery: 200}

func TestCrashRecovery(t *testing.T) { embeddedtest.CrashRecovery(t, kind, crash) }

// TestMain runs the crash child instead of the tests when its variable is
// set.
func TestMain(m *testing.M) {
	embeddedtest.CrashChild(crash)
	os.Exit(m.Run())
}

// TestDiskFull also runs with small segments, so that a full disk meets a
// segment roll.
func TestDiskFull(t *testing.T) {
	embeddedtest.DiskFull(t, kind, checkRolledBack, embeddedtest.Variant{
		Name: "small-segments",
		Open: func(path string) (embeddedtest.Store, error) {
			return embeddedtest.Opened(Open(path, Options{SegmentSize: 100 << 10}))
		},
	})
}

// checkRolledBack checks that the segment files hold exactly the committed
// frames: a failed write left nothing behind.
func checkRolledBack(t *testing.T, es embeddedtest.Store) {
	t.Helper()
	s := es.(*Store)
	var total int64
	for _, seg := range s.segs {
		fi, err := seg.f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		total += fi.Size()
	}
	if uint64(total) != s.end {
		t.Fatalf("segments hold %d bytes, the committed log %d: the failed write was not rolled back", total, s.end)
	}
}
