package turnarchive_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"turnstile/adapters/turnarchive"
	"turnstile/domain/turn"
	"turnstile/projections"
)

// TestListingPagesAgainstBruteForce (review): turns of odd workspaces
// (empty, a NUL-extended name, unicode, 300 bytes, prefixes of each other)
// and ids that sort between held and archived ones, some left open, some
// interrupted; every filter (workspace, status, after, limit) over the
// archive on disk equals a brute-force filter of every turn's view, and
// walking the pages with after= gives every turn once.
func TestListingPagesAgainstBruteForce(t *testing.T) {
	a, err := turnarchive.Open(filepath.Join(t.TempDir(), "readmodels.archive"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	p := projections.NewWith(projections.Options{RecentTurns: 3, Archive: a})
	l := &reviewLog{t: t}
	rng := rand.New(rand.NewPCG(1, 2))
	wss := []string{"", "a", "a\x00", "a\x00b", "ab", "é", strings.Repeat("w", 300), strings.Repeat("w", 300) + "\x00", "\x01"}
	var ids []string
	for i := range 400 {
		id := fmt.Sprintf("%c%03d", "abcxyz"[rng.IntN(6)], i)
		if slices.Contains(ids, id) {
			continue
		}
		ids = append(ids, id)
		ws := wss[rng.IntN(len(wss))]
		l.add(p, id, &turn.TurnStarted{TurnID: id, WorkspaceID: ws, ThreadID: "th"})
		switch rng.IntN(5) {
		case 0: // stays open
		case 1:
			l.add(p, id, &turn.TurnInterrupted{})
		default:
			l.add(p, id, &turn.TurnCompleted{})
		}
	}
	all := make([]projections.TurnView, 0, len(ids))
	for _, id := range ids {
		v, ok := p.Turn(id)
		if !ok {
			t.Fatalf("turn %s not found", id)
		}
		all = append(all, v)
	}
	slices.SortFunc(all, func(x, y projections.TurnView) int { return strings.Compare(x.TurnID, y.TurnID) })
	brute := func(f projections.TurnFilter) []projections.TurnView {
		var out []projections.TurnView
		for _, v := range all {
			if (f.WorkspaceID == "" || v.WorkspaceID == f.WorkspaceID) && (f.Status == "" || string(v.Status) == f.Status) && v.TurnID > f.After {
				out = append(out, v)
			}
		}
		if f.Limit > 0 && len(out) > f.Limit {
			out = out[:f.Limit]
		}
		return out
	}
	js := func(v []projections.TurnView) string {
		if len(v) == 0 {
			return "[]"
		}
		b, _ := json.Marshal(v)
		return string(b)
	}
	afters := []string{"", "a", "a050", "b", "c199", "x", "y3", "zzz", ids[0], ids[len(ids)-1]}
	for _, ws := range wss {
		for _, st := range []string{"", "in_progress", "completed", "interrupted", "failed", "bogus"} {
			for _, after := range afters {
				for _, lim := range []int{0, 1, 2, 7, 100} {
					f := projections.TurnFilter{WorkspaceID: ws, Status: st, After: after, Limit: lim}
					if got, want := p.Turns(f), brute(f); js(got) != js(want) {
						t.Fatalf("%q: %d turns, want %d:\n%s\n%s", fmt.Sprintf("%+v", f), len(got), len(want), js(got), js(want))
					}
				}
			}
			// Walk the pages.
			var walked []string
			for after := ""; ; {
				page := p.Turns(projections.TurnFilter{WorkspaceID: ws, Status: st, After: after, Limit: 3})
				if len(page) == 0 {
					break
				}
				for _, v := range page {
					walked = append(walked, v.TurnID)
				}
				after = page[len(page)-1].TurnID
			}
			var want []string
			for _, v := range brute(projections.TurnFilter{WorkspaceID: ws, Status: st}) {
				want = append(want, v.TurnID)
			}
			if !slices.Equal(walked, want) {
				t.Fatalf("ws %q status %q: pages walk %v, want %v", ws, st, walked, want)
			}
		}
	}
}
