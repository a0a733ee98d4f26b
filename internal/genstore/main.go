// Command genstore fills an embedded store with realistic turns, in process
// through the engine (every event as the server would record it: the same
// commands, snapshots, hash chain and fsync per commit), for measuring the
// server over a large store:
//
//	go run ./internal/genstore -out /tmp/big/events.db -events 1000000
//
// The turns are internal/turngen's (the same as `turnstile bench-fill`
// writes): supervised, 20 events each, over 100 workspaces and 1,000
// threads. The last -open turns are left open, each with a pending request.
// Its workspaces (/work/repo-N) need not exist: the engine runs without the
// server's resource checker.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"turnstile/adapters/boltstore"
	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/internal/turngen"
)

func main() {
	out := flag.String("out", "", "store file to create or extend (events.db in a data directory)")
	events := flag.Int("events", 1_000_000, "events to add (about)")
	open := flag.Int("open", 64, "turns left open at the end, each with a pending request")
	workers := flag.Int("workers", 64, "turns written at once")
	prefix := flag.String("prefix", "g", "turn id prefix (use another to extend a store)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "genstore: -out is required")
		os.Exit(2)
	}
	st, err := boltstore.Open(*out, boltstore.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "genstore:", err)
		os.Exit(1)
	}
	defer st.Close()
	eng := engine.New(st, engine.Config{Kernel: domain.KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true}, MaxCachedTurns: 4 * *workers})
	turns := *events / turngen.EventsPerTurn
	start := time.Now()
	fill := turngen.Fill{Turns: turns, Workers: *workers,
		Turn: func(i int) turngen.Turn {
			return turngen.Turn{ID: fmt.Sprintf("%s%07d", *prefix, i), WorkspaceID: fmt.Sprintf("ws-%d", i%100), ThreadID: fmt.Sprintf("th-%d", i%1000),
				Root: fmt.Sprintf("/work/repo-%d", i%100), Open: i >= turns-*open,
				Input: json.RawMessage(fmt.Sprintf(`[{"type":"text","text":"Fix the failing test in pkg%d and explain the change."}]`, i%37))}
		},
	}
	var written atomic.Int64
	fill.Progress = func(done, _ int64) { written.Store(done) }
	stop := make(chan struct{})
	go func() {
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				n := written.Load()
				fmt.Fprintf(os.Stderr, "%d turns (%.0f turns/s)\n", n, float64(n)/time.Since(start).Seconds())
			}
		}
	}()
	_, err = fill.Run(context.Background(), eng)
	close(stop)
	if err != nil {
		fmt.Fprintln(os.Stderr, "genstore:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "%d turns in %s (%d events in the store)\n", turns, time.Since(start).Round(time.Second), st.Stats().Events)
}
