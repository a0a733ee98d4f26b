package projections

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"turnstile/domain"
	"turnstile/domain/turn"
)

// TestRecentTurnsBoundedInBytes: the ended turns held in full are, after
// every history, the longest run of the latest to end whose events (those
// after the end included) are within RecentBytes and whose number is within
// RecentTurns; computed here from the events alone.
func TestRecentTurnsBoundedInBytes(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		h := drawHistory(rt)
		recent := rapid.SampledFrom([]int{1, 3, 1000, -1}).Draw(rt, "recent")
		recentBytes := rapid.SampledFrom([]int64{-1, 300, 1000, 3000, 10000}).Draw(rt, "recent_bytes")
		p := replay(rt, Options{RecentTurns: recent, RecentBytes: recentBytes}, h.events)

		size := map[string]int64{}
		var ended []string // in the order they ended
		for i := range h.events {
			e := &h.events[i]
			size[e.TurnID] += int64(e.Size)
			switch e.Payload.(type) {
			case *turn.TurnCompleted, *turn.TurnInterrupted, *turn.TurnFailed:
				ended = append(ended, e.TurnID)
			}
		}
		var want []string
		var sum int64
		for i := len(ended) - 1; i >= 0; i-- {
			id := ended[i]
			if recent >= 0 && len(want)+1 > recent || recentBytes >= 0 && sum+size[id] > recentBytes {
				break
			}
			want = append(want, id)
			sum += size[id]
		}
		slices.Reverse(want)
		var got []string
		for _, id := range ended {
			if _, held, _ := p.TurnHeld(id); held {
				got = append(got, id)
			}
		}
		if !slices.Equal(got, want) {
			rt.Fatalf("ended turns held %v, want %v (sizes %v, bounds %d turns, %d bytes)", got, want, size, recent, recentBytes)
		}
		if p.recentBytes != sum {
			rt.Fatalf("recent bytes %d, the held ended turns' %d", p.recentBytes, sum)
		}
	})
}

// TestAttack18RecentTurnsBoundedInBytes: the agent fills turns with large
// events (each within the open-turn quota) and ends them one after another;
// the projector keeps in full only as many as DefaultRecentBytes allows,
// not DefaultRecentTurns of them, and reads the others from their streams.
// Control: with no bound in bytes, every one of them is held.
func TestAttack18RecentTurnsBoundedInBytes(t *testing.T) {
	const turns, big = 40, 8 << 20 // 320 MiB stored in all
	var evs []turn.Event
	n := uint64(0)
	add := func(id string, v int64, p turn.Payload, size int) {
		n++
		evs = append(evs, genEvent(id, v, n, p, size))
	}
	for i := range turns {
		id := fmt.Sprintf("big%02d", i)
		add(id, 0, &turn.TurnStarted{TurnID: id, WorkspaceID: "ws", ThreadID: "th"}, 200)
		prof := domain.TurnPermissionProfileSnapshot{Mode: domain.ModeSupervised, Source: domain.SourceComposer}
		add(id, 1, &turn.ProfileSelected{Profile: prof}, 200)
		act := turn.ActionRecord{ToolName: "shell", Kind: domain.ActionShellCommand, Summary: "cat big"}
		add(id, 2, &turn.DecisionDenied{Decided: turn.Decided{ToolCallID: "c", Action: act,
			Decision: turn.DecisionRecord{Behavior: domain.BehaviorDeny, Reason: domain.ReasonPolicyDeniesAction}}}, big)
		add(id, 3, &turn.TurnCompleted{}, 200)
	}
	heldEnded := func(o Options) int {
		p := replay(t, o, evs)
		k := 0
		for i := range turns {
			if _, held, ok := p.TurnHeld(fmt.Sprintf("big%02d", i)); !ok {
				t.Fatalf("turn %d unknown", i)
			} else if held {
				k++
			}
		}
		return k
	}
	if got, want := heldEnded(Options{}), int(DefaultRecentBytes/(big+600)); got != want {
		t.Errorf("default bounds: %d ended turns of %d MiB held in full, want %d (%d MiB)", got, big>>20, want, DefaultRecentBytes>>20)
	}
	if got := heldEnded(Options{RecentBytes: -1}); got != turns {
		t.Errorf("control, no bound in bytes: %d ended turns held, want %d", got, turns)
	}
}
