package projections_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"turnstile/domain"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
	"turnstile/projections"
)

// foldHistory is the events of 100 supervised turns, each a start, 12
// decisions of which 2 ask and are answered, and an end, written by
// turn.Decide (no store: the benchmark times the folds alone).
func foldHistory(b *testing.B) []turn.Event {
	b.Helper()
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	var out []turn.Event
	for n := range 100 {
		id := fmt.Sprintf("t%d", n)
		s := turn.NewState(id)
		m := turn.Meta{Now: now, Actor: domain.Actor{Name: "agent"}}
		apply := func(cmd turn.Command) {
			evs, _, err := turn.Decide(s, cmd)
			if err != nil {
				b.Fatal(err)
			}
			for i := range evs {
				evs[i].Version = s.Version + 1
				evs[i].Position = eventstore.Position{Commit: uint64(len(out) + 1)}
				evs[i].Type = evs[i].Payload.EventType()
				turn.Evolve(s, &evs[i])
				out = append(out, evs[i])
			}
		}
		apply(&turn.StartTurn{Meta: m, TurnID: id, WorkspaceID: "ws", Profile: &domain.ProfileRequest{Mode: domain.ModeSupervised}, Inputs: turn.Inputs{WorkspaceRoot: "/work/repo"}})
		for c := range 12 {
			call := fmt.Sprintf("c%d", c)
			inv := domain.Invocation{ToolName: "read_file", Arguments: json.RawMessage(fmt.Sprintf(`{"path":"f%d.go"}`, c))}
			if c%6 == 0 {
				inv = domain.Invocation{ToolName: "exec_command", Arguments: json.RawMessage(fmt.Sprintf(`{"cmd":["make","t%d"]}`, c))}
			}
			apply(&turn.EvaluateTool{Meta: m, ToolCallID: call, Invocation: inv, TTL: time.Minute})
			if c%6 == 0 {
				apply(&turn.RespondApproval{Meta: m, RequestID: turn.RequestID(id, call), Resolution: domain.ResolutionAllowOnce})
			}
		}
		apply(&turn.EndTurn{Meta: m, Status: turn.StatusCompleted})
	}
	return out
}

// BenchmarkFold times the two folds of the same events: the engine's
// (turn.Evolve into a fresh State per turn) and the read models'
// (Projector.Apply into a fresh projector).
func BenchmarkFold(b *testing.B) {
	evs := foldHistory(b)
	b.Run("evolve", func(b *testing.B) {
		for range b.N {
			states := map[string]*turn.State{}
			for i := range evs {
				s := states[evs[i].TurnID]
				if s == nil {
					s = turn.NewState(evs[i].TurnID)
					states[evs[i].TurnID] = s
				}
				turn.Evolve(s, &evs[i])
			}
		}
		b.ReportMetric(float64(len(evs)*b.N)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("project", func(b *testing.B) {
		for range b.N {
			p := projections.New()
			for i := range evs {
				if err := p.Apply(&evs[i]); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(len(evs)*b.N)/b.Elapsed().Seconds(), "events/s")
	})
}
