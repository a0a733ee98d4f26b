package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"turnstile/adapters/boltstore"
	"turnstile/api"
	"turnstile/domain"
	"turnstile/domain/engine"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
	"turnstile/projections"
)

// BenchmarkVerifyAll times GET /v1/audit/verify (the server side of
// `turnstile audit verify --all`) over a store of TURNSTILE_BENCH_EVENTS
// events (default 200,000), built once in TURNSTILE_BENCH_STORE (a file
// kept between runs) or a temp dir: turns of a start, 14 decisions (every
// seventh asks and is answered) and an end, written by the engine from 64
// goroutines.
func BenchmarkVerifyAll(b *testing.B) {
	events := 200_000
	if v := os.Getenv("TURNSTILE_BENCH_EVENTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatal(err)
		}
		events = n
	}
	path := os.Getenv("TURNSTILE_BENCH_STORE")
	if path == "" {
		path = filepath.Join(b.TempDir(), "events.db")
	}
	st, err := boltstore.Open(path, boltstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	if err := fillStore(st, events); err != nil {
		b.Fatal(err)
	}
	token := "in-process-test-token-0123456789"
	srv := api.New(api.Config{Engine: engine.New(st, engine.Config{}), Projector: projections.New(), Store: st, Token: token})
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	var done api.VerifyProgress
	b.ResetTimer()
	for b.Loop() {
		req, _ := http.NewRequest("GET", hs.URL+"/v1/audit/verify", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			var l api.VerifyLine
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				b.Fatal(err)
			}
			if l.Tampered != nil || l.Error != nil {
				b.Fatalf("%s", sc.Bytes())
			}
			if l.Done != nil {
				done = *l.Done
			}
		}
		resp.Body.Close()
	}
	b.ReportMetric(float64(done.Events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(done.Events), "events")
}

// fillStore appends turns until the store holds at least events events.
func fillStore(st *boltstore.Store, events int) error {
	ctx := context.Background()
	have := 0
	for from := uint64(0); ; {
		recs, err := st.ReadAll(ctx, eventstore.Position{Commit: from, Prepare: from}, 100_000)
		if err != nil {
			return err
		}
		have += len(recs)
		if len(recs) < 100_000 {
			break
		}
		from = recs[len(recs)-1].Position.Commit
	}
	if have >= events {
		return nil
	}
	eng := engine.New(st, engine.Config{})
	run := strconv.Itoa(have)
	var next, written atomic.Int64
	written.Store(int64(have))
	var wg sync.WaitGroup
	var firstErr atomic.Value
	for range 64 {
		wg.Go(func() {
			for written.Load() < int64(events) {
				id := fmt.Sprintf("fill-%s-%d", run, next.Add(1))
				n, err := fillOne(ctx, eng, id)
				if err != nil {
					firstErr.CompareAndSwap(nil, err)
					return
				}
				written.Add(int64(n))
			}
		})
	}
	wg.Wait()
	if err, ok := firstErr.Load().(error); ok {
		return err
	}
	return nil
}

// fillOne writes one turn and returns how many events it appended.
func fillOne(ctx context.Context, eng *engine.Engine, id string) (int, error) {
	res, err := eng.Execute(ctx, id, &turn.StartTurn{TurnID: id, WorkspaceID: "ws-" + id[len(id)-1:],
		Profile: &domain.ProfileRequest{Mode: domain.ModeSupervised}, Inputs: turn.Inputs{WorkspaceRoot: "/work/repo"}})
	if err != nil {
		return 0, err
	}
	n := len(res.Events)
	for c := range 14 {
		inv := domain.Invocation{ToolName: "task_list"}
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
