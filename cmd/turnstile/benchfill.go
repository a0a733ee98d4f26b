package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"turnstile/domain/engine"
	"turnstile/internal/turngen"
	"turnstile/sandbox"
)

// benchFillCmd writes realistic turns straight into a data directory's
// embedded store, in process (the server stopped), so that `turnstile
// bench` and start-up can be measured on a store of a given size.
func benchFillCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench-fill", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "", "data directory (default as for serve); stop its server first")
	events := fs.Int("events", 1_000_000, "about how many events to add")
	workers := fs.Int("workers", 256, "turns written at once (their decisions share group commits)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: turnstile bench-fill [--data DIR] [--events N]\n\nAdds about N events to the data directory's embedded store, in process, for\nbenchmarks: turns of 20 events (a start, 14 decisions of which 2 ask and are\nanswered allow_once, an end) in workspace bench-fill, through the same engine\nas the server (without resource checks: their workspace roots do not exist).\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	if fs.NArg() > 0 || *events < 1 || *workers < 1 {
		fmt.Fprintln(stderr, "turnstile bench-fill: need --events >= 1, --workers >= 1 and no arguments")
		return 2
	}
	dir, err := dataDir(*data)
	if err != nil {
		fmt.Fprintln(stderr, "turnstile bench-fill:", err)
		return 1
	}
	e, err := chooseEmbedded(dir)
	if err != nil {
		fmt.Fprintln(stderr, "turnstile bench-fill:", err)
		return 1
	}
	store, desc, err := e.open()
	if err != nil {
		fmt.Fprintln(stderr, "turnstile bench-fill:", err)
		return 1
	}
	defer store.Close()
	fmt.Fprintln(stderr, "store:", desc)
	eng := engine.New(store, engine.Config{Kernel: sandbox.Probe().Kernel, KeyFromStore: true})
	turns := (*events + turngen.EventsPerTurn - 1) / turngen.EventsPerTurn
	run := time.Now().UTC().Format("20060102T150405")
	start := time.Now()
	fill := turngen.Fill{Turns: turns, Workers: *workers,
		Turn: func(i int) turngen.Turn {
			id := fmt.Sprintf("fill-%s-%d", run, i)
			return turngen.Turn{ID: id, WorkspaceID: "bench-fill", ThreadID: id, Root: fmt.Sprintf("/work/repo-%d", i%100)}
		},
		Progress: func(done, written int64) {
			if done%1000 == 0 {
				fmt.Fprintf(stderr, "\r%d/%d turns, %d events (%.0f events/s)", done, turns, written, float64(written)/time.Since(start).Seconds())
			}
		},
	}
	written, err := fill.Run(context.Background(), eng)
	fmt.Fprintln(stderr)
	if err != nil {
		fmt.Fprintln(stderr, "turnstile bench-fill:", err)
		return 1
	}
	fmt.Fprintf(stdout, "added %d events (%d turns) in %s\n", written, turns, time.Since(start).Round(time.Millisecond))
	return 0
}
