package embeddedtest

import (
	"context"
	"crypto/rand"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"turnstile/domain/eventstore"
)

// The read benchmarks' store: ScanEvents events of about ScanEventSize
// bytes over streams of TurnEvents events (Fill).
const (
	ScanEvents    = 100_000
	ScanEventSize = 500
	// TurnEvents is the number of events per stream in the append
	// benchmarks and the read benchmarks' store.
	TurnEvents = 20
)

// BenchAppend measures durable (fsynced) single-event appends per second
// on s, which it closes. Each writer appends to its own streams with
// NoStream / Exactly(n) and moves to a new stream every TurnEvents events,
// like turns do.
func BenchAppend(b *testing.B, writers int, s Store) {
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
				if i%TurnEvents == 0 {
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

// Fill appends n events of about size bytes over streams of TurnEvents
// events named turn-%08d, written in appends of whole streams by 8 writers.
func Fill(b *testing.B, s eventstore.Store, n, size int) {
	b.Helper()
	ctx := context.Background()
	payload := make([]byte, size)
	_, _ = rand.Read(payload)
	const perStream = TurnEvents
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

// BenchReadAll measures a raw scan of the whole log of s (filled with
// ScanEvents events) through ReadAll in pages of 1000 events.
func BenchReadAll(b *testing.B, s eventstore.Store) {
	ctx := context.Background()
	b.SetBytes(ScanEvents * ScanEventSize)
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
		if n != ScanEvents {
			b.Fatalf("scanned %d events, want %d", n, ScanEvents)
		}
	}
	b.ReportMetric(float64(ScanEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchReadStream measures loading one turn (the decide path after a
// conflict) from s, filled with ScanEvents events.
func BenchReadStream(b *testing.B, s eventstore.Store) {
	ctx := context.Background()
	i := 0
	for b.Loop() {
		evs, err := s.ReadStream(ctx, fmt.Sprintf("turn-%08d", (i*7919)%(ScanEvents/TurnEvents)), 0, 0)
		if err != nil || len(evs) != TurnEvents {
			b.Fatalf("ReadStream: %d events, %v", len(evs), err)
		}
		i++
	}
}

// BenchSubscribeCatchUp measures a filtered subscription catching up over
// the whole log of s, filled with ScanEvents events (the projector's
// rebuild path).
func BenchSubscribeCatchUp(b *testing.B, s eventstore.Store) {
	ctx := context.Background()
	b.SetBytes(ScanEvents * ScanEventSize)
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
		if n != ScanEvents {
			b.Fatalf("received %d events, want %d", n, ScanEvents)
		}
	}
	b.ReportMetric(float64(ScanEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
