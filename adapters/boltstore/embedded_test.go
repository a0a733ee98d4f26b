package boltstore

import (
	"context"
	"os"
	"testing"
	"time"

	"turnstile/adapters/internal/embeddedtest"
)

// kind is this store for the suite shared with the log store.
var kind = embeddedtest.Kind{
	File: "events.db",
	Open: func(path string) (embeddedtest.Store, error) { return embeddedtest.Opened(Open(path, Options{})) },
	OpenShortLock: func(path string) (embeddedtest.Store, error) {
		return embeddedtest.Opened(Open(path, Options{LockTimeout: 50 * time.Millisecond}))
	},
	CommitBatch: commitBatch,
	ErrInvalid:  ErrInvalid,
	ErrLocked:   ErrLocked,
}

// commitBatch hands batch to the writer's commitBatch as one transaction.
func commitBatch(ctx context.Context, s embeddedtest.Store, batch []embeddedtest.Append) ([]embeddedtest.Result, error) {
	return embeddedtest.Batch(batch,
		func(a embeddedtest.Append) (*appendReq, error) {
			return newAppendReq(ctx, a.Stream, a.Expected, a.Events)
		},
		func(reqs []*appendReq) { s.(*Store).commitBatch(reqs) },
		func(r *appendReq) embeddedtest.Result {
			resp := <-r.done
			return embeddedtest.Result{Res: resp.res, Err: resp.err}
		})
}

func TestEmbedded(t *testing.T) { embeddedtest.Run(t, kind) }

var crash = embeddedtest.Crash{Env: "BOLTSTORE_CRASH_CHILD", Open: kind.Open}

func TestCrashRecovery(t *testing.T) { embeddedtest.CrashRecovery(t, kind, crash) }

// TestMain runs the crash child instead of the tests when its variable is
// set.
func TestMain(m *testing.M) {
	embeddedtest.CrashChild(crash)
	os.Exit(m.Run())
}

func TestDiskFull(t *testing.T) { embeddedtest.DiskFull(t, kind, nil) }
