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
	"testing"

	"turnstile/adapters/boltstore"
	"turnstile/api"
	"turnstile/domain/engine"
	"turnstile/domain/eventstore"
	"turnstile/internal/turngen"
	"turnstile/projections"
)

// BenchmarkVerifyAll times GET /v1/audit/verify (the server side of
// `turnstile audit verify --all`) over a store of TURNSTILE_BENCH_EVENTS
// events (default 200,000), built once in TURNSTILE_BENCH_STORE (a file
// kept between runs) or a temp dir: internal/turngen's turns, written by
// the engine from 64 goroutines.
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
	run := strconv.Itoa(have)
	fill := turngen.Fill{Turns: (events - have + turngen.EventsPerTurn - 1) / turngen.EventsPerTurn, Workers: 64,
		Turn: func(i int) turngen.Turn {
			id := fmt.Sprintf("fill-%s-%d", run, i)
			return turngen.Turn{ID: id, WorkspaceID: "ws-" + id[len(id)-1:], Root: "/work/repo"}
		}}
	_, err := fill.Run(ctx, engine.New(st, engine.Config{}))
	return err
}
