package projections

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"
	"pgregory.net/rapid"

	"turnstile/domain"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

// genTime draws the zero time, a UTC time or a time at another offset,
// with nanoseconds.
func genTime(t *rapid.T, label string) time.Time {
	switch rapid.IntRange(0, 2).Draw(t, label+"_kind") {
	case 0:
		return time.Time{}
	case 1:
		return time.Unix(rapid.Int64Range(-1<<40, 1<<40).Draw(t, label+"_s"), rapid.Int64Range(0, 999999999).Draw(t, label+"_ns")).UTC()
	}
	loc := time.FixedZone("z", rapid.IntRange(-14*3600, 14*3600).Draw(t, label+"_off"))
	return time.Unix(rapid.Int64Range(-1<<40, 1<<40).Draw(t, label+"_s"), rapid.Int64Range(0, 999999999).Draw(t, label+"_ns")).In(loc)
}

func genStr(t *rapid.T, label string) string {
	return rapid.OneOf(rapid.Just(""), rapid.String(), rapid.StringN(0, 300, 600)).Draw(t, label)
}

func genAuditRow(t *rapid.T, turnID string) AuditRow {
	r := AuditRow{
		TurnID: turnID, Version: rapid.Int64().Draw(t, "version"), Kind: genStr(t, "kind"), OccurredAt: genTime(t, "at"),
		Actor:       domain.Actor{Name: genStr(t, "actor"), Role: domain.Role(genStr(t, "role"))},
		ProfileMode: domain.Mode(genStr(t, "mode")), ProfileSource: domain.ProfileSource(genStr(t, "source")),
		ItemID: genStr(t, "item"), ToolCallID: genStr(t, "call"), ToolName: genStr(t, "tool"),
		ActionKind: domain.ActionKind(genStr(t, "action")), RequestID: genStr(t, "request"), Decision: genStr(t, "decision"),
		Reason: domain.Reason(genStr(t, "reason")), Cached: rapid.Bool().Draw(t, "cached"), Detail: genStr(t, "detail"),
	}
	if rapid.Bool().Draw(t, "has_key") {
		r.RequestKey = &RequestKey{ActionKind: domain.ActionKind(genStr(t, "key_action")), ScopeHash: genStr(t, "key_hash")}
	}
	switch rapid.IntRange(0, 2).Draw(t, "scope") {
	case 1:
		r.Scope = domain.Scope{}
	case 2:
		for i := range rapid.IntRange(1, 5).Draw(t, "entries") {
			_ = i
			r.Scope = append(r.Scope, domain.ScopeEntry{Key: genStr(t, "k"), Value: genStr(t, "v")})
		}
	}
	return r
}

// TestAuditLogRoundTrip: every row read back from an audit log is the row
// added, field for field (reflect.DeepEqual, nil and empty scopes told
// apart), with the event's position and id as Position and EventID, and
// encodes to the same JSON; pages cut where asked.
func TestAuditLogRoundTrip(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var l auditLog
		var want []AuditRow
		first := genStr(rt, "turn")
		for i := range rapid.IntRange(0, 12).Draw(rt, "rows") {
			turnID := first
			if i > 0 && rapid.IntRange(0, 9).Draw(rt, "other_turn") == 0 {
				turnID = genStr(rt, "turn2") // never so, but stored all the same
			}
			r := genAuditRow(rt, turnID)
			e := &turn.Event{ID: uuid.UUID(rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(rt, "id")),
				Position: eventstore.Position{Commit: rapid.Uint64().Draw(rt, "commit"), Prepare: rapid.Uint64().Draw(rt, "prepare")}}
			if rapid.Bool().Draw(rt, "same_pos") {
				e.Position.Prepare = e.Position.Commit
			}
			l.add(e, &r)
			r.Position, r.EventID = e.Position.String(), e.ID.String()
			want = append(want, r)
		}
		got := l.page(0, 0)
		if len(want) == 0 {
			if got != nil || l.len() != 0 {
				rt.Fatalf("an empty log read %#v", got)
			}
			return
		}
		if !reflect.DeepEqual(got, want) {
			rt.Fatalf("rows differ:\n got %#v\nwant %#v", got, want)
		}
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		if string(gj) != string(wj) {
			rt.Fatalf("JSON differs:\n%s\n%s", gj, wj)
		}
		off, lim := rapid.IntRange(-2, len(want)+2).Draw(rt, "offset"), rapid.IntRange(-1, len(want)+2).Draw(rt, "limit")
		o, e := pageBounds(len(want), off, lim)
		if p := l.page(off, lim); !reflect.DeepEqual(p, append([]AuditRow{}, want[o:e]...)) {
			rt.Fatalf("page(%d, %d) = %d rows, want rows %d..%d", off, lim, len(p), o, e)
		}
	})
}

// TestTimelineLogRoundTrip: every timeline row read back is the row added.
func TestTimelineLogRoundTrip(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var l timelineLog
		var want []TimelineRow
		first := genStr(rt, "turn")
		for i := range rapid.IntRange(0, 12).Draw(rt, "rows") {
			turnID := first
			if i > 0 && rapid.IntRange(0, 9).Draw(rt, "other_turn") == 0 {
				turnID = genStr(rt, "turn2")
			}
			r := TimelineRow{TurnID: turnID, Version: rapid.Int64().Draw(rt, "version"), OccurredAt: genTime(rt, "at"),
				Kind: genStr(rt, "kind"), Title: genStr(rt, "title"), Detail: genStr(rt, "detail"), RequestID: genStr(rt, "request")}
			l.add(&r)
			want = append(want, r)
		}
		if got := l.all(); !reflect.DeepEqual(got, want) {
			rt.Fatalf("rows differ:\n got %#v\nwant %#v", got, want)
		}
	})
}

// TestRowStoreChunks: rows of every size, one larger than a chunk among
// them, read back whole and in order across the chunks they fill, and no
// chunk is ever moved (each row is where it was put).
func TestRowStoreChunks(t *testing.T) {
	var s rowStore
	var want [][]byte
	var first []byte
	for i := range 300 {
		n := (i*37)%900 + 1 // never empty: the first row's address is compared
		if i == 150 {
			n = rowChunk + 1000
		}
		row := make([]byte, n)
		for j := range row {
			row[j] = byte(i + j)
		}
		s.put(row)
		if i == 0 {
			first = s.get(0)
		}
		want = append(want, row)
	}
	if s.len() != len(want) {
		t.Fatalf("%d rows, want %d", s.len(), len(want))
	}
	for i, w := range want {
		if got := s.get(i); string(got) != string(w) {
			t.Fatalf("row %d differs (%d bytes, want %d)", i, len(got), len(w))
		}
	}
	if len(s.chunks) < 3 {
		t.Fatalf("%d chunks for %d rows: the test did not cross chunks", len(s.chunks), len(want))
	}
	if &first[0] != &s.get(0)[0] {
		t.Fatal("the first row moved")
	}
	for i, c := range s.chunks {
		if cap(c) > rowChunk && len(c) != cap(c) {
			t.Fatalf("chunk %d: %d of %d bytes used; only a row larger than a chunk gets a larger one", i, len(c), cap(c))
		}
	}
}
