package boltstore

import (
	"fmt"
	"testing"

	bolt "go.etcd.io/bbolt"

	"turnstile/adapters/internal/embeddedtest"
	"turnstile/domain/eventstore"
)

// BenchmarkAppend measures durable (fsynced) single-event appends per
// second (embeddedtest.BenchAppend). adapters/logstore's benchmarks run
// this store beside the log store.
func BenchmarkAppend(b *testing.B) {
	for _, w := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("writers=%d", w), func(b *testing.B) { embeddedtest.BenchAppend(b, w, openTemp(b, Options{})) })
	}
}

// BenchmarkAppendBoltOptions compares the bbolt options Open uses with
// bbolt's defaults (freelist synced, array freelist, no initial mmap).
func BenchmarkAppendBoltOptions(b *testing.B) {
	defaults := Options{tune: func(o *bolt.Options) {
		o.NoFreelistSync, o.FreelistType, o.InitialMmapSize = false, bolt.FreelistArrayType, 0
	}}
	for _, w := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("opts=store/writers=%d", w), func(b *testing.B) { embeddedtest.BenchAppend(b, w, openTemp(b, Options{})) })
		b.Run(fmt.Sprintf("opts=bbolt-defaults/writers=%d", w), func(b *testing.B) { embeddedtest.BenchAppend(b, w, openTemp(b, defaults)) })
	}
}

// benchRead runs read on a store filled with embeddedtest.ScanEvents
// events.
func benchRead(b *testing.B, read func(*testing.B, eventstore.Store)) {
	s := openTemp(b, Options{})
	defer s.Close()
	embeddedtest.Fill(b, s, embeddedtest.ScanEvents, embeddedtest.ScanEventSize)
	read(b, s)
}

// BenchmarkReadAll measures a raw scan of the whole log through ReadAll in
// pages of 1000 events.
func BenchmarkReadAll(b *testing.B) { benchRead(b, embeddedtest.BenchReadAll) }

// BenchmarkSubscribeCatchUp measures a filtered subscription catching up
// over the whole log (the projector's rebuild path).
func BenchmarkSubscribeCatchUp(b *testing.B) { benchRead(b, embeddedtest.BenchSubscribeCatchUp) }

// BenchmarkReadStream measures loading one 20-event turn from the store
// above (the decide path after a conflict).
func BenchmarkReadStream(b *testing.B) { benchRead(b, embeddedtest.BenchReadStream) }
