package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"turnstile/adapters/boltstore"
	"turnstile/adapters/logstore"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

// migratePage is how many events migrate reads, imports and verifies at a
// time.
const migratePage = 4096

func migrateCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "", "data directory (default as for serve)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: turnstile migrate [--data DIR]\n\nConverts the data directory's bbolt store (%s, written by earlier versions) to the\nlog store (%s/) once, with the server stopped: copies every event (ids, revisions,\npositions, times), re-reads the copy, checks it event by event against the original and\nrecomputes every turn's hash chain, and only then switches the data directory to the log\nstore. %s is kept until you remove it. Progress goes to stderr.\n\nflags:\n", boltFileName, logDirName, boltFileName)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "turnstile migrate: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	dir, err := dataDir(*data)
	if err != nil {
		fmt.Fprintln(stderr, "turnstile migrate:", err)
		return 1
	}
	if err := migrate(context.Background(), dir, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "turnstile migrate:", err)
		return 1
	}
	return 0
}

// migrate copies data's bbolt store to a new log store beside it, verifies
// the copy and renames it into place.
func migrate(ctx context.Context, data string, stdout, stderr io.Writer) error {
	e, err := chooseEmbedded(data)
	if err != nil {
		return err
	}
	boltPath := filepath.Join(data, boltFileName)
	switch {
	case e.kind == "log" && e.staleBolt != "":
		fmt.Fprintf(stdout, "%s already uses the log store (%s); %s is no longer used: remove it when you no longer need it\n", data, e.path, boltPath)
		return nil
	case e.kind == "log":
		return fmt.Errorf("%s has no %s: nothing to migrate", data, boltFileName)
	}
	src, err := boltstore.Open(boltPath, boltstore.Options{})
	if errors.Is(err, boltstore.ErrLocked) {
		return fmt.Errorf("%s is in use: stop the server first", boltPath)
	}
	if err != nil {
		return err
	}
	defer src.Close()
	total := src.LastPosition()

	tmp := filepath.Join(data, logDirName+".migrating")
	if _, err := os.Stat(tmp); err == nil {
		fmt.Fprintf(stderr, "removing %s, left by an interrupted migration\n", tmp)
		if err := os.RemoveAll(tmp); err != nil {
			return err
		}
	}
	dst, err := logstore.Open(tmp, logstore.Options{MaxBatch: migratePage})
	if err != nil {
		return err
	}
	p := newMigrateProgress(stderr, "copying", total)
	for pos := eventstore.Start; ; {
		evs, err := src.ReadAll(ctx, pos, migratePage)
		if err != nil {
			dst.Close()
			return err
		}
		if len(evs) == 0 {
			break
		}
		if err := dst.Import(ctx, evs); err != nil {
			dst.Close()
			return err
		}
		pos = evs[len(evs)-1].Position
		p.add(len(evs))
	}
	p.done()
	if err := dst.Close(); err != nil {
		return err
	}
	// Re-read the copy from disk (Open checks every frame's checksum) and
	// compare it with the original.
	if dst, err = logstore.Open(tmp, logstore.Options{}); err != nil {
		return fmt.Errorf("reopening the copy: %w", err)
	}
	n, turns, err := verifyMigration(ctx, src, dst, total, stderr)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("the copy in %s does not match %s, nothing switched: %w", tmp, boltPath, err)
	}
	if err := os.Rename(tmp, filepath.Join(data, logDirName)); err != nil {
		return err
	}
	if err := fsyncDir(data); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "migrated %d events (%d turns, hash chains verified) from %s to %s\nthe server now uses %s; %s is kept: remove it when you no longer need it\n",
		n, turns, boltPath, filepath.Join(data, logDirName), filepath.Join(data, logDirName), boltPath)
	return nil
}

// verifyMigration reads both stores side by side: the same number of
// events, each equal in every field, and every turn's hash chain intact in
// the copy. It returns the event and turn counts.
func verifyMigration(ctx context.Context, src *boltstore.Store, dst *logstore.Store, total uint64, stderr io.Writer) (int, int, error) {
	p := newMigrateProgress(stderr, "verifying", total)
	chains := map[string]string{} // turn stream → hash of its last event
	n := 0
	for pos := eventstore.Start; ; {
		a, err := src.ReadAll(ctx, pos, migratePage)
		if err != nil {
			return n, 0, err
		}
		b, err := dst.ReadAll(ctx, pos, migratePage)
		if err != nil {
			return n, 0, err
		}
		if len(a) != len(b) {
			return n, 0, fmt.Errorf("after position %s: %d events in the original, %d in the copy", pos, len(a), len(b))
		}
		if len(a) == 0 {
			break
		}
		for i := range a {
			if err := sameEvent(a[i], b[i]); err != nil {
				return n, 0, err
			}
			if strings.HasPrefix(b[i].Stream, "turn-") {
				last, err := turn.VerifyChain(b[i:i+1], chains[b[i].Stream])
				if err != nil {
					return n, 0, err
				}
				chains[b[i].Stream] = last
			}
		}
		n += len(a)
		pos = a[len(a)-1].Position
		p.add(len(a))
	}
	p.done()
	if uint64(n) != total || dst.LastPosition() != total {
		return n, 0, fmt.Errorf("%d events in the original, %d read, %d in the copy", total, n, dst.LastPosition())
	}
	return n, len(chains), nil
}

func sameEvent(a, b eventstore.RecordedEvent) error {
	if a.ID != b.ID || a.Stream != b.Stream || a.Revision != b.Revision || a.Position != b.Position || a.Type != b.Type ||
		!bytes.Equal(a.Data, b.Data) || !bytes.Equal(a.Metadata, b.Metadata) || !a.Created.Equal(b.Created) {
		return fmt.Errorf("position %s (%s@%d) differs in the copy", a.Position, a.Stream, a.Revision)
	}
	return nil
}

// migrateProgress prints a one-line progress bar to w, redrawn in place.
type migrateProgress struct {
	w          io.Writer
	what       string
	total, n   uint64
	lastPermil uint64
}

func newMigrateProgress(w io.Writer, what string, total uint64) *migrateProgress {
	p := &migrateProgress{w: w, what: what, total: total, lastPermil: ^uint64(0)}
	p.draw()
	return p
}

func (p *migrateProgress) add(n int) {
	p.n += uint64(n)
	p.draw()
}

func (p *migrateProgress) draw() {
	permil := uint64(1000)
	if p.total > 0 {
		permil = min(p.n*1000/p.total, 1000)
	}
	if permil == p.lastPermil {
		return
	}
	p.lastPermil = permil
	const width = 30
	bar := strings.Repeat("#", int(permil*width/1000)) + strings.Repeat(".", width-int(permil*width/1000))
	fmt.Fprintf(p.w, "\r%-9s [%s] %5.1f%% %d/%d events", p.what, bar, float64(permil)/10, p.n, p.total)
}

func (p *migrateProgress) done() { fmt.Fprintln(p.w) }

// fsyncDir makes a rename in dir durable.
func fsyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
