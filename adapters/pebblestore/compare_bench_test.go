package pebblestore

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"turnstile/adapters/boltstore"
	"turnstile/domain/eventstore"
)

// The benchmarks below run the bbolt store and this one side by side, each
// case on both, so that one `go test -bench` run on a loaded machine
// compares them under the same load (docs/benchmarks.md).

type benchStore interface {
	eventstore.Store
	Close() error
}

var candidates = []struct {
	name string
	open func(dir string) (benchStore, error)
}{
	{"bolt", func(dir string) (benchStore, error) {
		return boltstore.Open(filepath.Join(dir, "events.db"), boltstore.Options{})
	}},
	{"pebble", func(dir string) (benchStore, error) { return Open(filepath.Join(dir, "events"), Options{}) }},
}

func openCandidate(b *testing.B, i int) benchStore {
	b.Helper()
	s, err := candidates[i].open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkCompareAppend measures durable single-event appends with 1 and 64
// writers, each on its own streams of turnEvents events (NoStream, then
// Exactly(n)), like turns deciding. ns/op at writers=1 is the latency of one
// append on an idle store.
func BenchmarkCompareAppend(b *testing.B) {
	for _, w := range []int{1, 64} {
		for i, c := range candidates {
			b.Run(fmt.Sprintf("writers=%d/store=%s", w, c.name), func(b *testing.B) {
				benchAppend(b, openCandidate(b, i), w)
			})
		}
	}
}

const turnEvents = 20

func benchAppend(b *testing.B, s benchStore, writers int) {
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
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "appends/s")
}

const (
	scanEvents    = 100_000
	scanEventSize = 500
)

var (
	fixtureMu sync.Mutex
	fixtures  = map[string]benchStore{}
)

// scanFixture returns (building once per process) a store of candidate i
// holding scanEvents events over streams of 20, written 20 at a time.
func scanFixture(b *testing.B, i int) benchStore {
	b.Helper()
	fixtureMu.Lock()
	defer fixtureMu.Unlock()
	if s, ok := fixtures[candidates[i].name]; ok {
		return s
	}
	dir, err := mkdirTemp()
	if err != nil {
		b.Fatal(err)
	}
	s, err := candidates[i].open(dir)
	if err != nil {
		b.Fatal(err)
	}
	payload := make([]byte, scanEventSize)
	_, _ = rand.Read(payload)
	ctx := context.Background()
	batch := make([]eventstore.EventData, 20)
	for n := 0; n < scanEvents; n += 20 {
		for j := range batch {
			batch[j] = eventstore.EventData{ID: uuid.New(), Type: "bench.event", Data: payload}
		}
		if _, err := s.Append(ctx, fmt.Sprintf("turn-%08d", n/20), eventstore.NoStream(), batch); err != nil {
			b.Fatal(err)
		}
	}
	fixtures[candidates[i].name] = s
	return s
}

// BenchmarkCompareReadStream measures loading one 20-event turn from a
// store of 100k events.
func BenchmarkCompareReadStream(b *testing.B) {
	for i, c := range candidates {
		b.Run("store="+c.name, func(b *testing.B) {
			s := scanFixture(b, i)
			ctx := context.Background()
			n := 0
			for b.Loop() {
				evs, err := s.ReadStream(ctx, fmt.Sprintf("turn-%08d", (n*7919)%(scanEvents/20)), 0, 0)
				if err != nil || len(evs) != 20 {
					b.Fatalf("ReadStream: %d events, %v", len(evs), err)
				}
				n++
			}
		})
	}
}

// BenchmarkCompareReadAll measures a replay of the whole 100k-event log
// through ReadAll in pages of 1000.
func BenchmarkCompareReadAll(b *testing.B) {
	for i, c := range candidates {
		b.Run("store="+c.name, func(b *testing.B) {
			s := scanFixture(b, i)
			ctx := context.Background()
			b.SetBytes(scanEvents * scanEventSize)
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
					b.Fatalf("replayed %d events, want %d", n, scanEvents)
				}
			}
			b.ReportMetric(float64(scanEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// mkdirTemp makes a directory for a fixture shared by benchmarks; TestMain
// removes it.
func mkdirTemp() (string, error) {
	dir, err := os.MkdirTemp("", "storebench")
	if err == nil {
		fixtureDirs = append(fixtureDirs, dir)
	}
	return dir, err
}

var fixtureDirs []string

func TestMain(m *testing.M) {
	code := m.Run()
	for _, s := range fixtures {
		_ = s.Close()
	}
	for _, d := range fixtureDirs {
		_ = os.RemoveAll(d)
	}
	os.Exit(code)
}
