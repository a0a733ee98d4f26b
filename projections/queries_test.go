package projections

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestTurnsPage: a page of Turns (a bounded heap over held and old turns)
// is the sorted, filtered list of every turn, cut at the limit.
func TestTurnsPage(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		h := drawHistory(rt)
		p := replay(rt, Options{RecentTurns: rapid.IntRange(1, 3).Draw(rt, "recent")}, h.events)
		f := TurnFilter{
			WorkspaceID: rapid.SampledFrom([]string{"", "ws1", "ws2"}).Draw(rt, "ws"),
			Status:      rapid.SampledFrom([]string{"", "in_progress", "completed", "awaiting_approval"}).Draw(rt, "status"),
			After:       rapid.SampledFrom([]string{"", "t00", "t01", "t03"}).Draw(rt, "after"),
			Limit:       rapid.IntRange(0, 5).Draw(rt, "limit"),
		}
		var want []TurnView
		for _, v := range p.Export().Turns {
			if (f.WorkspaceID == "" || v.WorkspaceID == f.WorkspaceID) && (f.Status == "" || string(v.Status) == f.Status) && v.TurnID > f.After {
				want = append(want, v)
			}
		}
		slices.SortFunc(want, func(a, b TurnView) int { return strings.Compare(a.TurnID, b.TurnID) })
		if f.Limit > 0 && len(want) > f.Limit {
			want = want[:f.Limit]
		}
		got := p.Turns(f)
		if len(got) != len(want) {
			rt.Fatalf("%+v: %d turns, want %d", f, len(got), len(want))
		}
		for i := range got {
			if !reflect.DeepEqual(got[i], want[i]) {
				rt.Fatalf("%+v: turn %d is %s, want %s", f, i, got[i].TurnID, want[i].TurnID)
			}
		}
	})
}
