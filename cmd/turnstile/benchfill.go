package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
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
	eng := engine.New(store, engine.Config{Kernel: sandbox.Probe().Kernel})
	const perTurn = 20
	turns := (*events + perTurn - 1) / perTurn
	run := time.Now().UTC().Format("20060102T150405")
	var next, written atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	start := time.Now()
	for range *workers {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(turns) {
					return
				}
				n, err := fillTurn(context.Background(), eng, fmt.Sprintf("fill-%s-%d", run, i), fmt.Sprintf("/work/repo-%d", i%100))
				written.Add(int64(n))
				if err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
					next.Store(int64(turns))
					return
				}
				if i%1000 == 999 {
					fmt.Fprintf(stderr, "\r%d/%d turns, %d events (%.0f events/s)", i+1, turns, written.Load(), float64(written.Load())/time.Since(start).Seconds())
				}
			}
		})
	}
	wg.Wait()
	fmt.Fprintln(stderr)
	if firstErr != nil {
		fmt.Fprintln(stderr, "turnstile bench-fill:", firstErr)
		return 1
	}
	fmt.Fprintf(stdout, "added %d events (%d turns) in %s\n", written.Load(), turns, time.Since(start).Round(time.Millisecond))
	return 0
}

var fillReadArgs = json.RawMessage(`{"path":"src/main.go"}`)

// fillTurn writes one turn of 20 events and returns how many it wrote.
func fillTurn(ctx context.Context, eng *engine.Engine, id, root string) (int, error) {
	n := 0
	res, err := eng.Execute(ctx, id, &turn.StartTurn{TurnID: id, WorkspaceID: "bench-fill", ThreadID: id,
		Profile: &domain.ProfileRequest{Mode: domain.ModeSupervised}, Inputs: turn.Inputs{WorkspaceRoot: root}})
	if err != nil {
		return n, err
	}
	n += len(res.Events)
	for c := range 14 {
		inv := domain.Invocation{ToolName: "read_file", Arguments: fillReadArgs}
		if c%7 == 6 {
			inv = domain.Invocation{ToolName: "exec_command", Arguments: json.RawMessage(fmt.Sprintf(`{"cmd":["go","test","./pkg%d/..."]}`, c))}
		}
		res, err := eng.Execute(ctx, id, &turn.EvaluateTool{ToolCallID: fmt.Sprintf("c%d", c), Invocation: inv})
		if err != nil {
			return n, err
		}
		n += len(res.Events)
		if res.Approval != nil {
			r, err := eng.Execute(ctx, id, &turn.RespondApproval{RequestID: res.Approval.Request.RequestID, Resolution: domain.ResolutionAllowOnce})
			if err != nil {
				return n, err
			}
			n += len(r.Events)
		}
	}
	res, err = eng.Execute(ctx, id, &turn.EndTurn{Status: turn.StatusCompleted})
	return n + len(res.Events), err
}
