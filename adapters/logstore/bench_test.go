package logstore

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"turnstile/adapters/boltstore"
	"turnstile/domain/eventstore"
)

// The benchmarks here run the log store and the bbolt store side by side
// (sub-benchmark store=log|bolt, interleaved in one run), so that their
// ratio is measured under the same load:
//
//	go test ./adapters/logstore -run '^$' -bench . -count 6 | tee out.txt
//	go run golang.org/x/perf/cmd/benchstat@latest -col /store out.txt

// benchStores are the stores compared.
var benchStores = []struct {
	name string
	open func(b *testing.B) statStore
}{
	{"log", func(b *testing.B) statStore { return openTemp(b, Options{}) }},
	{"bolt", func(b *testing.B) statStore {
		s, err := boltstore.Open(filepath.Join(b.TempDir(), "events.db"), boltstore.Options{})
		if err != nil {
			b.Fatal(err)
		}
		return boltStats{s}
	}},
}

// statStore is a store with group-commit counters.
type statStore interface {
	eventstore.Store
	commitStats() (commits, appends uint64)
}

func (s *Store) commitStats() (uint64, uint64) { st := s.Stats(); return st.Commits, st.Appends }

type boltStats struct{ *boltstore.Store }

func (s boltStats) commitStats() (uint64, uint64) { st := s.Stats(); return st.Commits, st.Appends }

// BenchmarkAppend measures durable (fsynced) single-event appends per
// second. Each writer appends to its own streams with NoStream / Exactly(n)
// and moves to a new stream every turnEvents events, like turns do.
func BenchmarkAppend(b *testing.B) {
	for _, w := range []int{1, 8, 64} {
		for _, st := range benchStores {
			b.Run(fmt.Sprintf("writers=%d/store=%s", w, st.name), func(b *testing.B) { benchAppend(b, w, st.open(b)) })
		}
	}
}

// turnEvents is the number of events per stream in the append benchmarks.
const turnEvents = 20

func benchAppend(b *testing.B, writers int, s statStore) {
	defer s.Close()
	payload := make([]byte, 256)
	_, _ = rand.Read(payload)
	ctx := context.Background()
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for w := range writers {
		wg.Go(func() {
			var stream string
			exp := eventstore.NoStream()
			for i := 0; next.Add(1) <= int64(b.N); i++ {
				if i%turnEvents == 0 {
					stream, exp = fmt.Sprintf("turn-%s-%d", uuid.NewString(), w), eventstore.NoStream()
				}
				ev := eventstore.EventData{ID: uuid.New(), Type: "bench.event", Data: payload}
				res, err := s.Append(ctx, stream, exp, []eventstore.EventData{ev})
				if err != nil {
					b.Error(err)
					return
				}
				exp = eventstore.Exactly(res.NextExpectedRevision)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "appends/s")
	if commits, appends := s.commitStats(); commits > 0 {
		b.ReportMetric(float64(appends)/float64(commits), "appends/commit")
	}
}

// fill appends n events of about size bytes over streams of 20 events,
// written in appends of whole streams by 8 writers.
func fill(b *testing.B, s eventstore.Store, n, size int) {
	b.Helper()
	ctx := context.Background()
	payload := make([]byte, size)
	_, _ = rand.Read(payload)
	const perStream = 20
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			batch := make([]eventstore.EventData, perStream)
			for i := w * perStream; i < n; i += 8 * perStream {
				for j := range batch {
					batch[j] = eventstore.EventData{ID: uuid.New(), Type: "bench.event", Data: payload}
				}
				if _, err := s.Append(ctx, fmt.Sprintf("turn-%08d", i/perStream), eventstore.NoStream(), batch[:min(perStream, n-i)]); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

const (
	scanEvents    = 100_000
	scanEventSize = 500
)

// BenchmarkReadAll measures a raw scan of the whole log through ReadAll in
// pages of 1000 events.
func BenchmarkReadAll(b *testing.B) {
	for _, st := range benchStores {
		b.Run("store="+st.name, func(b *testing.B) {
			s := st.open(b)
			defer s.Close()
			fill(b, s, scanEvents, scanEventSize)
			ctx := context.Background()
			b.SetBytes(scanEvents * scanEventSize)
			b.ResetTimer()
			for b.Loop() {
				pos, n := eventstore.Start, 0
				for {
					evs, err := s.ReadAll(ctx, pos, 1000)
					if err != nil {
						b.Fatal(err)
					}
					n += len(evs)
					if len(evs) < 1000 {
						break
					}
					pos = evs[len(evs)-1].Position
				}
				if n != scanEvents {
					b.Fatalf("scanned %d events, want %d", n, scanEvents)
				}
			}
			b.ReportMetric(float64(scanEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkReadStream measures loading one 20-event turn (the decide path
// after a conflict) from a store of 100,000 events.
func BenchmarkReadStream(b *testing.B) {
	for _, st := range benchStores {
		b.Run("store="+st.name, func(b *testing.B) {
			s := st.open(b)
			defer s.Close()
			fill(b, s, scanEvents, scanEventSize)
			ctx := context.Background()
			i := 0
			for b.Loop() {
				evs, err := s.ReadStream(ctx, fmt.Sprintf("turn-%08d", (i*7919)%(scanEvents/20)), 0, 0)
				if err != nil || len(evs) != 20 {
					b.Fatalf("ReadStream: %d events, %v", len(evs), err)
				}
				i++
			}
		})
	}
}

// BenchmarkOpen measures opening a store of 1M events of about 1 KiB and
// reports the heap the open store holds: the log store from its index
// checkpoint plus the log after it (store=log), the log store with no
// checkpoint, scanning and checksumming every segment (store=log-scan), and
// bbolt, which maps the file and rebuilds its freelist (store=bolt).
func BenchmarkOpen(b *testing.B) {
	const events, size = 1_000_000, 1000
	cases := []struct {
		name, kind string
		scan       bool
	}{{"log", "log", false}, {"log-scan", "log", true}, {"bolt", "bolt", false}}
	for _, c := range cases {
		b.Run("store="+c.name, func(b *testing.B) {
			s := benchStores[0].open(b)
			if c.kind == "bolt" {
				s = benchStores[1].open(b)
			}
			fill(b, s, events, size)
			dir := storePath(s)
			s.Close()
			var opened statStore
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				if opened != nil {
					opened.Close()
				}
				if c.scan {
					if err := os.Remove(filepath.Join(dir, checkpointName)); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				opened = reopen(b, c.kind, dir)
			}
			b.StopTimer()
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
			evs, err := opened.ReadAll(context.Background(), eventstore.Position{Commit: events - 1, Prepare: events - 1}, 0)
			if err != nil || len(evs) != 1 {
				b.Fatalf("last event after open: %d, %v", len(evs), err)
			}
			opened.Close()
		})
	}
}

func storePath(s statStore) string {
	switch s := s.(type) {
	case *Store:
		return s.Dir()
	case boltStats:
		return s.Path()
	}
	panic("unknown store")
}

func reopen(b *testing.B, kind, path string) statStore {
	if kind == "log" {
		s, err := Open(path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	s, err := boltstore.Open(path, boltstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return boltStats{s}
}
