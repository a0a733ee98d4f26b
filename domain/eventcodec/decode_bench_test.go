package eventcodec

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"turnstile/domain"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

// sampleRecords returns one stored record of each common event type: a
// turn's start (3 events), an allowed decision, an approval request and its
// resolution.
func sampleRecords(b testing.TB) map[string]eventstore.RecordedEvent {
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	s := turn.NewState("t1")
	out := map[string]eventstore.RecordedEvent{}
	apply := func(cmd turn.Command) {
		evs, _, err := turn.Decide(s, cmd)
		if err != nil {
			b.Fatal(err)
		}
		data, err := turn.Encode(evs, s.LastHash)
		if err != nil {
			b.Fatal(err)
		}
		for i, d := range data {
			rec := eventstore.RecordedEvent{ID: d.ID, Stream: turn.StreamName("t1"), Revision: uint64(s.Version + 1), Type: d.Type, Data: d.Data, Metadata: d.Metadata}
			out[d.Type] = rec
			e, err := Decode(&rec)
			if err != nil {
				b.Fatal(err)
			}
			_ = i
			turn.Evolve(s, &e)
		}
	}
	m := turn.Meta{Now: now, Actor: domain.Actor{Name: "agent"}, CorrelationID: "c"}
	apply(&turn.StartTurn{Meta: m, TurnID: "t1", WorkspaceID: "ws", Profile: &domain.ProfileRequest{Mode: domain.ModeSupervised}, Inputs: turn.Inputs{WorkspaceRoot: "/work/repo"}})
	apply(&turn.EvaluateTool{Meta: m, ToolCallID: "c1", Invocation: domain.Invocation{ToolName: "read_file", Arguments: json.RawMessage(`{"path":"src/main.go"}`)}, TTL: time.Minute})
	apply(&turn.EvaluateTool{Meta: m, ToolCallID: "c2", Invocation: domain.Invocation{ToolName: "exec_command", Arguments: json.RawMessage(`{"cmd":["go","test","./..."]}`)}, TTL: time.Minute})
	apply(&turn.RespondApproval{Meta: m, RequestID: turn.RequestID("t1", "c2"), Resolution: domain.ResolutionAllowOnce})
	return out
}

// BenchmarkDecode decodes one stored record of each common type. Snapshot
// payloads are remembered by their bytes (snapshotCache), so for those the
// "decode" case empties the cache before every decode (a clear of a
// one-entry map, a few ns) and a separate "cache_hit" case times the hit.
func BenchmarkDecode(b *testing.B) {
	recs := sampleRecords(b)
	for _, typ := range turn.EventRegistry.Types() {
		rec, ok := recs[typ]
		if !ok {
			continue
		}
		p, _ := turn.EventRegistry.New(typ, 1)
		cached := cacheable(p)
		b.Run(fmt.Sprintf("%s/%dB", typ, len(rec.Data)+len(rec.Metadata)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if cached {
					snapshotCache.reset()
				}
				if _, err := Decode(&rec); err != nil {
					b.Fatal(err)
				}
			}
		})
		if cached {
			b.Run(fmt.Sprintf("%s/cache_hit", typ), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Decode(&rec); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
