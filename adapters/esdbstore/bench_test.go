package esdbstore

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	esdbc "github.com/EventStore/EventStore-Client-Go/v4/esdb"
	"github.com/google/uuid"

	"turnstile/domain/eventstore"
	"turnstile/internal/esdbtest"
)

// BenchmarkAppend measures single-event appends (1 KiB of data, expected
// version Exactly(n) on the writer's own stream, as a turn appends) through
// the adapter and the real v4 client, with 1, 8 and 64 concurrent writers,
// against the in-memory test server and, when TURNSTILE_TEST_ESDB is set, a
// real server. It reports appends/s.
//
//	go test -run '^$' -bench BenchmarkAppend -benchtime 3s ./adapters/esdbstore/
func BenchmarkAppend(b *testing.B) {
	targets := []struct {
		name string
		conn func(b *testing.B) string
	}{
		{"TestServer", func(b *testing.B) string { return esdbtest.Start(b).ConnString() }},
		{"RealServer", func(b *testing.B) string {
			conn := os.Getenv(envServer)
			if conn == "" {
				b.Skip(envServer + " is not set")
			}
			return conn
		}},
	}
	for _, target := range targets {
		for _, writers := range []int{1, 8, 64} {
			b.Run(fmt.Sprintf("%s/writers=%d", target.name, writers), func(b *testing.B) {
				s := openStore(b, target.conn(b), Options{})
				benchAppends(b, s, writers)
			})
		}
	}
}

// BenchmarkAppendRawClient is BenchmarkAppend's test-server case with the
// v4 client called directly, to show what the adapter adds (a goroutine and
// a connection check per call, the port's conversions).
func BenchmarkAppendRawClient(b *testing.B) {
	for _, writers := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			srv := esdbtest.Start(b)
			cfg, err := esdbc.ParseConnectionString(srv.ConnString())
			if err != nil {
				b.Fatal(err)
			}
			cfg.Logger = esdbc.NoopLogging()
			c, err := esdbc.NewClient(cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			data := benchData()
			ctx := context.Background()
			run := uuid.NewString()
			var next atomic.Int64
			var failed atomic.Pointer[error]
			var wg sync.WaitGroup
			b.ResetTimer()
			start := time.Now()
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					stream := fmt.Sprintf("turn-bench-%s-%d", run, w)
					var exp esdbc.ExpectedRevision = esdbc.NoStream{}
					for next.Add(1) <= int64(b.N) {
						ev := esdbc.EventData{EventID: uuid.New(), EventType: "bench.appended", ContentType: esdbc.ContentTypeJson, Data: data}
						res, err := c.AppendToStream(ctx, stream, esdbc.AppendToStreamOptions{ExpectedRevision: exp}, ev)
						if err != nil {
							failed.CompareAndSwap(nil, &err)
							return
						}
						exp = esdbc.Revision(res.NextExpectedVersion)
					}
				}()
			}
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			if err := failed.Load(); err != nil {
				b.Fatalf("AppendToStream: %v", *err)
			}
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "appends/s")
		})
	}
}

// benchData is a 1 KiB JSON document.
func benchData() []byte {
	data := bytes.Repeat([]byte("x"), 1024)
	copy(data, `{"pad":"`)
	data[len(data)-2], data[len(data)-1] = '"', '}'
	return data
}

func benchAppends(b *testing.B, s *Store, writers int) {
	data := benchData()
	ctx := context.Background()
	run := uuid.NewString()

	var next atomic.Int64
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stream := fmt.Sprintf("turn-bench-%s-%d", run, w)
			exp := eventstore.NoStream()
			for next.Add(1) <= int64(b.N) {
				ev := []eventstore.EventData{{ID: uuid.New(), Type: "bench.appended", Data: data}}
				res, err := s.Append(ctx, stream, exp, ev)
				if err != nil {
					failed.CompareAndSwap(nil, &err)
					return
				}
				exp = eventstore.Exactly(res.NextExpectedRevision)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if err := failed.Load(); err != nil {
		b.Fatalf("Append: %v", *err)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "appends/s")
}
