// Command genstore fills an embedded store with realistic turns, in process
// through the engine (every event as the server would record it: the same
// commands, snapshots, hash chain and fsync per commit), for measuring the
// server over a large store:
//
//	go run ./internal/genstore -out /tmp/big/events.db -events 1000000
//
// Each turn is supervised and has about 20 events: a start (3 events), 14
// tool calls (read_file allowed, exec_command asked and answered allow_once,
// web_fetch asked and denied) and an end. The last -open turns are left
// open, each with a pending request. Its workspaces (/work/repo-N) need not
// exist: the engine runs without the server's resource checker.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"turnstile/adapters/boltstore"
	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/turn"
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
	turns := *events / 20
	var next, written atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Value
	start := time.Now()
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
	for range *workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= turns || failed.Load() != nil {
					return
				}
				if err := fill(eng, fmt.Sprintf("%s%07d", *prefix, i), i, i >= turns-*open); err != nil {
					failed.Store(err)
					return
				}
				written.Add(1)
			}
		})
	}
	wg.Wait()
	close(stop)
	if err, _ := failed.Load().(error); err != nil {
		fmt.Fprintln(os.Stderr, "genstore:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "%d turns in %s (%d events in the store)\n", turns, time.Since(start).Round(time.Second), st.Stats().Events)
}

var ctx = context.Background()

// fill writes one turn; an open one ends with a pending request.
func fill(eng *engine.Engine, id string, i int, open bool) error {
	root := fmt.Sprintf("/work/repo-%d", i%100)
	if _, err := eng.Execute(ctx, id, &turn.StartTurn{TurnID: id, WorkspaceID: fmt.Sprintf("ws-%d", i%100), ThreadID: fmt.Sprintf("th-%d", i%1000),
		Profile: &domain.ProfileRequest{Mode: domain.ModeSupervised}, Inputs: turn.Inputs{WorkspaceRoot: root, Cwd: root},
		Input: json.RawMessage(fmt.Sprintf(`[{"type":"text","text":"Fix the failing test in pkg%d and explain the change."}]`, i%37))}); err != nil {
		return err
	}
	for c := range 14 {
		inv := domain.Invocation{ToolName: "read_file", Arguments: json.RawMessage(fmt.Sprintf(`{"path":"src/pkg%d/file%d.go"}`, i%37, c))}
		resolution := domain.ResolutionAllowOnce
		switch c % 7 {
		case 3:
			inv = domain.Invocation{ToolName: "exec_command", Arguments: json.RawMessage(fmt.Sprintf(`{"cmd":["go","test","./pkg%d/..."]}`, c))}
		case 6:
			inv = domain.Invocation{ToolName: "web_fetch", Arguments: json.RawMessage(fmt.Sprintf(`{"url":"https://docs.example.com/page/%d"}`, c))}
			resolution = domain.ResolutionDeny
		}
		res, err := eng.Execute(ctx, id, &turn.EvaluateTool{ToolCallID: fmt.Sprintf("call-%d", c), Invocation: inv})
		if err != nil {
			return err
		}
		if res.Approval != nil {
			if open && c == 13 {
				return nil
			}
			if _, err := eng.Execute(ctx, id, &turn.RespondApproval{RequestID: res.Approval.Request.RequestID, Resolution: resolution}); err != nil {
				return err
			}
		}
	}
	_, err := eng.Execute(ctx, id, &turn.EndTurn{Status: turn.StatusCompleted})
	return err
}
