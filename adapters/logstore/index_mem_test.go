package logstore

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/google/uuid"

	"turnstile/domain/eventstore"
)

// TestIndexMemoryPerEvent: the index a store holds in memory after Open
// (from its checkpoint) costs at most 12 bytes an event, for 200,000
// events in 1,000 streams (4 bytes for the offset, 4 for the stream's
// position, the rest the streams' own; plain 8-byte slices took 17).
func TestIndexMemoryPerEvent(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const streams, appends, per = 1000, 2, 100
	data := make([]byte, 64)
	for range appends {
		for i := range streams {
			evs := make([]eventstore.EventData, per)
			for k := range evs {
				evs[k] = eventstore.EventData{ID: uuid.New(), Type: "t", Data: data, Metadata: []byte("{}")}
			}
			if _, err := s.Append(ctx, fmt.Sprintf("turn-%08d-abcdefabcdef", i), eventstore.Any(), evs); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	s, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.fromCheckpoint == 0 {
		t.Fatal("Open scanned the log: no checkpoint was written at Close")
	}
	const events = streams * appends * per
	perEvent := float64(heap()-before) / events
	t.Logf("%d events in %d streams: %.1f bytes of heap an event after Open", events, streams, perEvent)
	if perEvent > 12 {
		t.Fatalf("the index takes %.1f bytes an event, want at most 12", perEvent)
	}
	runtime.KeepAlive(s)
}
