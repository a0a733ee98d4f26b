package engine_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"os"

	"turnstile/adapters/boltstore"
	"turnstile/adapters/logstore"
	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
	"turnstile/internal/turngen"
	"turnstile/projections"
	"turnstile/sandbox"
)

// benchStore opens the store the benchmarks run on: the embedded log store
// (the default of `turnstile serve`), or the bbolt store when
// TURNSTILE_BENCH_STORE=bolt, so that the two compare side by side.
func benchStore(b *testing.B) eventstore.Store {
	var st eventstore.Store
	var err error
	switch kind := os.Getenv("TURNSTILE_BENCH_STORE"); kind {
	case "", "log":
		st, err = logstore.Open(filepath.Join(b.TempDir(), "events"), logstore.Options{})
	case "bolt":
		st, err = boltstore.Open(filepath.Join(b.TempDir(), "events.db"), boltstore.Options{})
	default:
		b.Fatalf("TURNSTILE_BENCH_STORE=%q: want log or bolt", kind)
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}

var readArgs = json.RawMessage(`{"path":"src/main.go"}`)

// benchEngine is an engine on a fresh store with the resource checker the
// server installs (sandbox.DecisionChecker), so that a benchmarked decision
// pays for the path checks a production one does. The turns it starts
// (benchStart) share a real workspace holding src/main.go.
func benchEngine(b *testing.B) (*engine.Engine, string) {
	root := b.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "src"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "src", "main.go"), []byte("package main\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	return engine.New(benchStore(b), engine.Config{Kernel: kernel, Checker: sandbox.DecisionChecker{Timeout: time.Second}}), root
}

// benchStart starts a supervised turn on root.
func benchStart(b *testing.B, eng *engine.Engine, id, root string) {
	if _, err := eng.Execute(ctx, id, &turn.StartTurn{TurnID: id, WorkspaceID: "ws", ThreadID: "th",
		Profile: &domain.ProfileRequest{Mode: domain.ModeSupervised}, Inputs: turn.Inputs{WorkspaceRoot: root}}); err != nil {
		b.Error(err)
	}
}

// BenchmarkDurableDecisions measures durable (fsynced) decisions per second
// with 1, 8 and 64 turns deciding at once; group commit lets concurrent
// turns share an fsync.
func BenchmarkDurableDecisions(b *testing.B) {
	for _, turns := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) {
			eng, root := benchEngine(b)
			for i := range turns {
				benchStart(b, eng, fmt.Sprintf("t%d", i), root)
			}
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			t0 := time.Now()
			for i := range turns {
				wg.Add(1)
				go func() {
					defer wg.Done()
					id := fmt.Sprintf("t%d", i)
					for {
						n := next.Add(1)
						if n > int64(b.N) {
							return
						}
						res, err := eng.Execute(ctx, id, &turn.EvaluateTool{ToolCallID: fmt.Sprintf("c%d", n), Invocation: domain.Invocation{ToolName: "read_file", Arguments: readArgs}})
						if err != nil || res.Decision.Behavior != domain.BehaviorAllow || len(res.Events) != 1 {
							b.Errorf("decision: %v %+v", err, res.Decision)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/time.Since(t0).Seconds(), "decisions/s")
		})
	}
}

// BenchmarkDecisionOnLongTurn compares one durable decision on a turn with
// 10 events and on one with 10,000: the engine decides on its cached state,
// so the history's length must not matter.
func BenchmarkDecisionOnLongTurn(b *testing.B) {
	for _, events := range []int{10, 10_000} {
		b.Run(fmt.Sprintf("events=%d", events), func(b *testing.B) {
			eng, root := benchEngine(b)
			benchStart(b, eng, "t", root)
			for i := 3; i < events; i++ {
				if _, err := eng.Execute(ctx, "t", &turn.EvaluateTool{ToolCallID: fmt.Sprintf("pre%d", i), Invocation: domain.Invocation{ToolName: "read_file", Arguments: readArgs}}); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for i := range b.N {
				if _, err := eng.Execute(ctx, "t", &turn.EvaluateTool{ToolCallID: fmt.Sprintf("c%d", i), Invocation: domain.Invocation{ToolName: "read_file", Arguments: readArgs}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecisionOnHeredoc: one durable decision on a command that writes
// 64 KiB through a here-document (supervised: it asks), every line of which
// holds needles of the secret patterns, so that the display values'
// redaction is most of its cost.
func BenchmarkDecisionOnHeredoc(b *testing.B) {
	line := "\tkey := cfg.Get(\"path\") // token: value, see https://h.example/a?b=c and ~/.ssh/config\n"
	cmd := "cat > main.go <<'EOF'\n" + strings.Repeat(line, (64<<10)/len(line)) + "EOF\nGITHUB_TOKEN=ghp_0123456789abcdefABCDEF go test ./..."
	args, err := json.Marshal(map[string]string{"cmd": cmd})
	if err != nil {
		b.Fatal(err)
	}
	eng, root := benchEngine(b)
	benchStart(b, eng, "t", root)
	b.ResetTimer()
	for i := range b.N {
		res, err := eng.Execute(ctx, "t", &turn.EvaluateTool{ToolCallID: fmt.Sprintf("c%d", i), Invocation: domain.Invocation{ToolName: "exec_command", Arguments: args}})
		if err != nil || res.Decision.Behavior != domain.BehaviorAsk {
			b.Fatalf("decision: %v %+v", err, res.Decision)
		}
	}
}

// replayFile builds (once) a store with about 200,000 events of a realistic
// mix: 10,000 of internal/turngen's turns over 100 workspaces. It is a
// fixture for the replay benchmark, which times the read models, not the decisions: its engine
// runs without a resource checker (its 100 workspaces do not exist).
var replayFile = sync.OnceValues(func() (string, error) {
	dir, err := tempDir()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "replay.db")
	st, err := boltstore.Open(path, boltstore.Options{})
	if err != nil {
		return "", err
	}
	defer st.Close()
	fill := turngen.Fill{Turns: 10_000, Workers: 16, Turn: func(i int) turngen.Turn {
		return turngen.Turn{ID: fmt.Sprintf("t%d", i), WorkspaceID: "ws", Root: fmt.Sprintf("/work/repo-%d", i%100)}
	}}
	if _, err := fill.Run(ctx, engine.New(st, engine.Config{Kernel: kernel})); err != nil {
		return "", err
	}
	return path, nil
})

// BenchmarkReplay rebuilds every read model from the file (events/s), next
// to a raw scan of the same file without decoding.
func BenchmarkReplay(b *testing.B) {
	path, err := replayFile()
	if err != nil {
		b.Fatal(err)
	}
	st, err := boltstore.Open(path, boltstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	b.Run("projections", func(b *testing.B) {
		var n uint64
		t0 := time.Now()
		for range b.N {
			p := projections.New()
			if err := p.Rebuild(ctx, st); err != nil {
				b.Fatal(err)
			}
			n += p.Applied()
		}
		b.ReportMetric(float64(n)/time.Since(t0).Seconds(), "events/s")
	})
	b.Run("raw_scan", func(b *testing.B) {
		var n int
		t0 := time.Now()
		for range b.N {
			pos := eventstore.Start
			for {
				recs, err := st.ReadAll(ctx, pos, 2048)
				if err != nil {
					b.Fatal(err)
				}
				n += len(recs)
				if len(recs) < 2048 {
					break
				}
				pos = recs[len(recs)-1].Position
			}
		}
		b.ReportMetric(float64(n)/time.Since(t0).Seconds(), "events/s")
	})
}

// BenchmarkCachedTurnMemory reports the heap a cached turn costs (a started
// supervised turn with 10 decisions, two of them approval requests).
func BenchmarkCachedTurnMemory(b *testing.B) {
	const turns, workers = 2000, 32
	for range b.N {
		eng, root := benchEngine(b)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < turns; i += workers {
					id := fmt.Sprintf("t%d", i)
					benchStart(b, eng, id, root)
					for c := range 10 {
						inv := domain.Invocation{ToolName: "read_file", Arguments: readArgs}
						if c%5 == 4 {
							inv = domain.Invocation{ToolName: "exec_command", Arguments: json.RawMessage(`{"cmd":["make"]}`)}
						}
						if _, err := eng.Execute(ctx, id, &turn.EvaluateTool{ToolCallID: fmt.Sprintf("c%d", c), Invocation: inv}); err != nil {
							b.Error(err)
							return
						}
					}
				}
			}()
		}
		wg.Wait()
		runtime.GC()
		runtime.ReadMemStats(&after)
		if eng.CachedTurns() != turns {
			b.Fatalf("%d turns cached", eng.CachedTurns())
		}
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/turns, "bytes/turn")
		runtime.KeepAlive(eng)
	}
}
