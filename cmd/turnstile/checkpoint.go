package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"turnstile/adapters/turnarchive"
	"turnstile/domain/eventcodec"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
	"turnstile/projections"
)

// checkpointName is the read models' checkpoint in the data directory,
// next to the embedded store. For a remote store it is there too, named
// after the store (a local file: each instance keeps its own).
const checkpointName = "readmodels.checkpoint"

// loadReadModels returns a projector restored from the checkpoint at path
// when the checkpoint is intact and the store still holds the very event it
// reflects at the same place; otherwise (no checkpoint, damaged, of another
// format or bound, of another archive of old turns, or newer than the
// store, e.g. a store restored from a backup) an empty one over an emptied
// archive, and the reason is logged: the follower then replays everything.
// A checkpoint never makes a read model wrong. It fails only when the
// archive cannot be emptied.
func loadReadModels(ctx context.Context, path string, opts projections.Options, store eventstore.Store, timeout time.Duration, log *slog.Logger) (*projections.Projector, error) {
	fresh := func() (*projections.Projector, error) {
		if opts.Archive != nil {
			if err := opts.Archive.Reset(); err != nil {
				return nil, err
			}
		}
		return projections.NewWith(opts), nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		log.Info("no read-model checkpoint: replaying the whole log", "path", path)
		return fresh()
	}
	if err != nil {
		log.Warn("read-model checkpoint unreadable: replaying the whole log", "path", path, "err", err)
		return fresh()
	}
	start := time.Now()
	p := projections.NewWith(opts)
	mark, err := p.Restore(b, turnReader(ctx, store, timeout))
	if err == nil && mark == (projections.Mark{}) {
		// Taken before the first event, it holds nothing to restore,
		// and nothing in the store vouches for it: one a command
		// planted in a data directory no server had used could say
		// anything (the hundred-and-thirty-eighth review).
		log.Info("read-model checkpoint taken before the first event: not used", "path", path)
		return fresh()
	}
	if err == nil {
		err = checkMark(ctx, store, mark, timeout)
	}
	if err == nil {
		// The archive may be ahead of the checkpoint (written after it),
		// but not of the store: one written before the store was restored
		// from a backup lists turns the store no longer has.
		am, ok, aerr := p.ArchiveMark()
		if err = aerr; ok {
			if err = checkMark(ctx, store, am, timeout); err != nil {
				err = fmt.Errorf("the archive of old turns: %w", err)
			}
		}
	}
	if err != nil {
		log.Warn("read-model checkpoint discarded: replaying the whole log", "path", path, "err", err)
		return fresh()
	}
	log.Info("read models restored from a checkpoint", "path", path, "events", p.Applied(), "position", mark.Position.String(),
		"bytes", len(b), "took", time.Since(start).Round(time.Millisecond))
	return p, nil
}

// turnReader reads a turn's stream from the store a page at a time.
func turnReader(ctx context.Context, store eventstore.Store, timeout time.Duration) projections.TurnReader {
	return func(id string, apply func(*turn.Event) error) error {
		var from uint64
		for {
			rctx, cancel := context.WithTimeout(ctx, timeout)
			recs, err := store.ReadStream(rctx, turn.StreamName(id), from, 1024)
			cancel()
			if err != nil {
				return err
			}
			for i := range recs {
				e, err := eventcodec.DecodeUnhashed(&recs[i])
				if err != nil {
					return err
				}
				if err := apply(&e); err != nil {
					return err
				}
			}
			if len(recs) < 1024 {
				return nil
			}
			from = recs[len(recs)-1].Revision + 1
		}
	}
}

// errStaleCheckpoint: the store does not hold the checkpoint's last event
// where the checkpoint says.
var errStaleCheckpoint = errors.New("the store does not hold the checkpoint's last event")

// checkMark checks that the store holds the event mark names, with the
// same id at the same position.
func checkMark(ctx context.Context, store eventstore.Store, mark projections.Mark, timeout time.Duration) error {
	if mark == (projections.Mark{}) {
		return nil // taken before the first event
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	recs, err := store.ReadStream(ctx, mark.Stream, mark.Revision, 1)
	if err != nil {
		return err
	}
	if len(recs) == 0 || recs[0].Revision != mark.Revision {
		return fmt.Errorf("%w: %s@%d is missing", errStaleCheckpoint, mark.Stream, mark.Revision)
	}
	if recs[0].ID != mark.EventID || recs[0].Position != mark.Position {
		return fmt.Errorf("%w: %s@%d is event %s at %s, the checkpoint has %s at %s", errStaleCheckpoint, mark.Stream, mark.Revision,
			recs[0].ID, recs[0].Position, mark.EventID, mark.Position)
	}
	e, err := eventcodec.DecodeUnhashed(&recs[0])
	if err != nil {
		return err
	}
	if e.PrevHash != mark.PrevHash {
		return fmt.Errorf("%w: %s@%d follows another event (hash chain) than the checkpoint's", errStaleCheckpoint, mark.Stream, mark.Revision)
	}
	return nil
}

// checkpointer writes the projector's checkpoint when it has moved since
// the last one.
type checkpointer struct {
	path  string
	proj  *projections.Projector
	saved projections.Mark
	due   bool // a save is due even if the read models did not move
	log   *slog.Logger
}

// newCheckpointer is the checkpointer of a projector loadReadModels
// returned: its first save is due once the read models move, or at once
// when the checkpoint it was restored from carries the summaries the
// archive now holds.
func newCheckpointer(path string, proj *projections.Projector, log *slog.Logger) *checkpointer {
	return &checkpointer{path: path, proj: proj, saved: proj.Mark(), due: proj.RestoredInline(), log: log}
}

// save writes a checkpoint if the read models moved since the last one.
func (c *checkpointer) save() error {
	if !c.due && c.proj.Mark() == c.saved {
		return nil
	}
	start := time.Now()
	b, mark, err := c.proj.Checkpoint()
	if err != nil {
		return err
	}
	tmp, err := writeTemp(c.path, b)
	if err != nil {
		return err
	}
	if err := commitTemp(tmp, c.path); err != nil {
		return err
	}
	c.saved, c.due = mark, false
	c.log.Debug("read-model checkpoint written", "path", c.path, "position", mark.Position.String(), "bytes", len(b), "took", time.Since(start))
	return nil
}

// checkpointEvents bounds the tail a crash leaves to replay: a checkpoint
// is also written once this many events were applied since the last one.
const checkpointEvents = 100_000

// run saves once the read models are rebuilt (so that a crash soon after
// a long replay does not replay it all again), then every interval or
// every checkpointEvents events, whichever comes first, until ctx ends.
func (c *checkpointer) run(ctx context.Context, rebuilt <-chan struct{}, interval time.Duration) {
	select {
	case <-ctx.Done():
		return
	case <-rebuilt:
	}
	t := time.NewTicker(min(interval, 5*time.Second))
	defer t.Stop()
	last, lastApplied := time.Time{}, uint64(0)
	for {
		if n := c.proj.Applied(); time.Since(last) >= interval || n-lastApplied >= checkpointEvents {
			if err := c.save(); err != nil {
				c.log.Warn("writing the read-model checkpoint", "path", c.path, "err", err)
			}
			last, lastApplied = time.Now(), n
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// writeTemp writes b to a temporary file beside path and syncs it. The
// file is made anew (O_EXCL, after removing what has the name): a link
// left at the name, by a command over a data directory a server had not
// used yet, would have taken every turn elsewhere (the
// hundred-and-thirty-eighth review).
func writeTemp(path string, b []byte) (string, error) {
	tmp := path + ".tmp"
	if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return "", err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return "", err
	}
	return tmp, f.Close()
}

// commitTemp renames tmp over path and syncs the directory: a crash leaves
// either the old checkpoint or the new one, never a part of one.
func commitTemp(tmp, path string) error {
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// checkpointPath is where the read models' checkpoint lives: in the data
// directory, named after the store when --store names one. Never beside a
// store outside it: the checkpoint is written as a temporary file renamed
// over the last one, and there a full_access command read both, the
// temporary file (no mask covers it) and the renamed one (a rename over a
// masked file detaches the mask in every other mount namespace). In the
// data directory both lie below the directory's mask.
func checkpointPath(f serveFlags) string {
	if f.store == "" {
		return filepath.Join(f.data, checkpointName)
	}
	sum := sha256.Sum256([]byte(f.store))
	return filepath.Join(f.data, hex.EncodeToString(sum[:6])+"."+checkpointName)
}

// openArchive opens the archive of old turns at path; one it cannot use
// (damaged, truncated, of another format, not a file) is moved aside to
// path.damaged, logged, and a new one made: it holds nothing a replay does
// not rebuild, and the checkpoint naming the old one is then discarded.
func openArchive(path string, log *slog.Logger) (*turnarchive.Archive, error) {
	a, err := turnarchive.Open(path)
	if !errors.Is(err, turnarchive.ErrDamaged) {
		return a, err
	}
	log.Warn("the archive of old turns is damaged: moved aside, the read models are replayed", "path", path, "to", path+".damaged", "err", err)
	if err := os.RemoveAll(path + ".damaged"); err != nil {
		return nil, err
	}
	if err := os.Rename(path, path+".damaged"); err != nil {
		return nil, err
	}
	return turnarchive.Open(path)
}

// archivePath is where the summaries of old turns live: beside the
// checkpoint, named as it is (projections.Archive, adapters/turnarchive).
func archivePath(checkpoint string) string {
	return strings.TrimSuffix(checkpoint, ".checkpoint") + ".archive"
}

// legacyCheckpointPath is where an earlier version kept a bolt store's
// checkpoint, beside the store ("" for other stores): still a secret while
// it exists, and removed at start.
func legacyCheckpointPath(f serveFlags) string {
	if !strings.HasPrefix(f.store, "bolt:") {
		return ""
	}
	return strings.TrimPrefix(f.store, "bolt:") + "." + checkpointName
}
