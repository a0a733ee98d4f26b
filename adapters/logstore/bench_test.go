package logstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"turnstile/adapters/boltstore"
	"turnstile/adapters/internal/embeddedtest"
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
	open func(b *testing.B) embeddedtest.Store
}{
	{"log", func(b *testing.B) embeddedtest.Store { return openTemp(b, Options{}) }},
	{"bolt", func(b *testing.B) embeddedtest.Store {
		return reopen(b, "bolt", filepath.Join(b.TempDir(), "events.db"))
	}},
}

// BenchmarkAppend measures durable (fsynced) single-event appends per
// second (embeddedtest.BenchAppend).
func BenchmarkAppend(b *testing.B) {
	for _, w := range []int{1, 8, 64} {
		for _, st := range benchStores {
			b.Run(fmt.Sprintf("writers=%d/store=%s", w, st.name), func(b *testing.B) { embeddedtest.BenchAppend(b, w, st.open(b)) })
		}
	}
}

// benchRead runs read on each store filled with embeddedtest.ScanEvents
// events.
func benchRead(b *testing.B, read func(*testing.B, eventstore.Store)) {
	for _, st := range benchStores {
		b.Run("store="+st.name, func(b *testing.B) {
			s := st.open(b)
			defer s.Close()
			embeddedtest.Fill(b, s, embeddedtest.ScanEvents, embeddedtest.ScanEventSize)
			read(b, s)
		})
	}
}

// BenchmarkReadAll measures a raw scan of the whole log through ReadAll in
// pages of 1000 events.
func BenchmarkReadAll(b *testing.B) { benchRead(b, embeddedtest.BenchReadAll) }

// BenchmarkReadStream measures loading one 20-event turn (the decide path
// after a conflict) from a store of 100,000 events.
func BenchmarkReadStream(b *testing.B) { benchRead(b, embeddedtest.BenchReadStream) }

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
			embeddedtest.Fill(b, s, events, size)
			dir := storePath(s)
			s.Close()
			var opened embeddedtest.Store
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

func storePath(s embeddedtest.Store) string {
	switch s := s.(type) {
	case *Store:
		return s.Dir()
	case *boltstore.Store:
		return s.Path()
	}
	panic("unknown store")
}

func reopen(b *testing.B, kind, path string) embeddedtest.Store {
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
	return s
}
