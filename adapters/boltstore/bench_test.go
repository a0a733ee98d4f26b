package boltstore

import (
	"context"
	"crypto/rand"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	bolt "go.etcd.io/bbolt"

	"turnstile/domain/eventstore"
)

// BenchmarkAppend measures durable (fsynced) single-event appends per
// second. Each writer appends to its own streams with NoStream / Exactly(n)
// and moves to a new stream every turnEvents events, like turns do.
func BenchmarkAppend(b *testing.B) {
	for _, w := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("writers=%d", w), func(b *testing.B) { benchAppend(b, w, Options{}) })
	}
}

// BenchmarkAppendBoltOptions compares the bbolt options Open uses with
// bbolt's defaults (freelist synced, array freelist, no initial mmap).
func BenchmarkAppendBoltOptions(b *testing.B) {
	defaults := Options{tune: func(o *bolt.Options) {
		o.NoFreelistSync, o.FreelistType, o.InitialMmapSize = false, bolt.FreelistArrayType, 0
	}}
	for _, w := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("opts=store/writers=%d", w), func(b *testing.B) { benchAppend(b, w, Options{}) })
		b.Run(fmt.Sprintf("opts=bbolt-defaults/writers=%d", w), func(b *testing.B) { benchAppend(b, w, defaults) })
	}
}

// turnEvents is the number of events per stream in the append benchmarks.
const turnEvents = 20

func benchAppend(b *testing.B, writers int, opts Options) {
	s := openTemp(b, opts)
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
	if st := s.Stats(); st.Commits > 0 {
		b.ReportMetric(float64(st.Appends)/float64(st.Commits), "appends/commit")
	}
}

// scanFixture builds a store holding n events of about size bytes over
// streams of 20 events, written in large appends.
func scanFixture(b *testing.B, n, size int) *Store {
	b.Helper()
	s := openTemp(b, Options{})
	ctx := context.Background()
	payload := make([]byte, size)
	_, _ = rand.Read(payload)
	const perStream = 20
	var batch []eventstore.EventData
	for i := 0; i < n; i += perStream {
		batch = batch[:0]
		for range min(perStream, n-i) {
			batch = append(batch, eventstore.EventData{ID: uuid.New(), Type: "bench.event", Data: payload})
		}
		if _, err := s.Append(ctx, fmt.Sprintf("turn-%08d", i/perStream), eventstore.NoStream(), batch); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

const (
	scanEvents    = 100_000
	scanEventSize = 500
)

// BenchmarkReadAll measures a raw scan of the whole log through ReadAll in
// pages of 1000 events.
func BenchmarkReadAll(b *testing.B) {
	s := scanFixture(b, scanEvents, scanEventSize)
	defer s.Close()
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
}

// BenchmarkSubscribeCatchUp measures a filtered subscription catching up
// over the whole log (the projector's rebuild path).
func BenchmarkSubscribeCatchUp(b *testing.B) {
	s := scanFixture(b, scanEvents, scanEventSize)
	defer s.Close()
	ctx := context.Background()
	b.SetBytes(scanEvents * scanEventSize)
	b.ResetTimer()
	for b.Loop() {
		sub, err := s.Subscribe(ctx, eventstore.Start, "turn-")
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			m, err := sub.Recv(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if m.CaughtUp {
				break
			}
			n++
		}
		sub.Close()
		if n != scanEvents {
			b.Fatalf("received %d events, want %d", n, scanEvents)
		}
	}
	b.ReportMetric(float64(scanEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkReadStream measures loading one 20-event turn from the store
// above (the decide path after a conflict).
func BenchmarkReadStream(b *testing.B) {
	s := scanFixture(b, scanEvents, scanEventSize)
	defer s.Close()
	ctx := context.Background()
	i := 0
	for b.Loop() {
		evs, err := s.ReadStream(ctx, fmt.Sprintf("turn-%08d", (i*7919)%(scanEvents/20)), 0, 0)
		if err != nil || len(evs) != 20 {
			b.Fatalf("ReadStream: %d events, %v", len(evs), err)
		}
		i++
	}
}
