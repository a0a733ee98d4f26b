package logstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"path/filepath"
	"testing"

	"github.com/google/uuid"
	"pgregory.net/rapid"

	"turnstile/adapters/internal/storekit"
	"turnstile/domain/eventstore"
)

// freshRecord is the record encoding before the buffers were pooled: a new
// zeroed slice per record, its length prefix, then storekit's record.
func freshRecord(stream string, ev eventstore.EventData) []byte {
	n := storekit.RecordLen(stream, ev)
	b := make([]byte, recordPrefixSize, recordPrefixSize+n)
	binary.BigEndian.PutUint32(b, uint32(n))
	return storekit.AppendRecord(b, stream, ev)
}

// TestPooledRecordsMatchFresh: the records an append encodes into a reused
// buffer (left full of other bytes by earlier appends) are byte for byte
// the ones a fresh buffer gave, whatever the sizes.
func TestPooledRecordsMatchFresh(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		for range rapid.IntRange(1, 4).Draw(rt, "appends") {
			dirty := make([]byte, rapid.IntRange(0, 3*minRecordBuf).Draw(rt, "dirty"))
			for i := range dirty {
				dirty[i] = 0xa5
			}
			dirty = dirty[:0]
			recordBufs.Put(&dirty)
			stream := rapid.StringMatching(`[a-z-]{1,20}`).Draw(rt, "stream")
			evs := make([]eventstore.EventData, rapid.IntRange(1, 4).Draw(rt, "events"))
			for i := range evs {
				evs[i] = eventstore.EventData{
					ID:       uuid.New(),
					Type:     rapid.StringMatching(`[A-Za-z]{1,30}`).Draw(rt, "type"),
					Metadata: rapid.SliceOfN(rapid.Byte(), 0, 600).Draw(rt, "meta"),
					Data:     rapid.SliceOfN(rapid.Byte(), 0, 3000).Draw(rt, "data"),
				}
			}
			req, err := newAppendReq(context.Background(), stream, eventstore.Any(), evs)
			if err != nil {
				rt.Fatal(err)
			}
			size := 0
			for i, ev := range evs {
				if want := freshRecord(stream, ev); !bytes.Equal(req.records[i], want) {
					rt.Fatalf("record %d:\n got %x\nwant %x", i, req.records[i], want)
				}
				size += len(req.records[i])
			}
			if size != req.size {
				rt.Fatalf("size %d, records hold %d", req.size, size)
			}
			req.release()
		}
	})
}

// TestPooledRecordsReadBack: appends of varied sizes, their buffers reused
// from one append to the next, read back as written.
func TestPooledRecordsReadBack(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "events"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var want [][]byte
	for i := range 40 {
		data := bytes.Repeat([]byte{byte('a' + i%26)}, (i*977)%5000)
		want = append(want, data)
		if _, err := s.Append(ctx, "s", eventstore.Any(), []eventstore.EventData{{ID: uuid.New(), Type: "T", Data: data}}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.ReadStream(ctx, "s", 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("read %d events, want %d", len(got), len(want))
	}
	for i := range got {
		if !bytes.Equal(got[i].Data, want[i]) {
			t.Errorf("event %d: %d bytes read, want %d", i, len(got[i].Data), len(want[i]))
		}
	}
}
