package projections

import (
	"fmt"
	"time"

	"github.com/google/uuid"
	"pgregory.net/rapid"

	"turnstile/domain"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
)

// history draws a sequence of turn events as the engine would record them
// (turns start, select a profile, resolve a snapshot, decide, open and
// resolve approvals, end with every open request cancelled, and get exec
// and egress records after the end), over a handful of turns, with
// positions increasing across the log.
type history struct {
	events []turn.Event
	turns  map[string]*genTurn
	order  []string
}

type genTurn struct {
	version int64
	ended   bool
	pending []string
}

var (
	genBase  = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	genModes = []domain.Mode{domain.ModeFullAccess, domain.ModeAutoAcceptEdits, domain.ModeSupervised}
)

func (h *history) add(id string, p turn.Payload) {
	g := h.turns[id]
	n := uint64(len(h.events) + 1)
	g.version++
	actor := domain.Actor{Name: "person"} // a turn is started by its runtime, other events are anyone's
	switch {
	case g.version == 0:
		actor = domain.Actor{Name: "agent-" + id[:1], Role: "runtime"}
	case n%3 == 0:
		actor = domain.Actor{Name: "other-" + fmt.Sprint(n%2), Role: "runtime"} // another credential's call in it
	case n%3 == 1:
		actor = domain.Actor{Name: "egress-proxy", Role: "system"}
	}
	ev := genEvent(id, g.version, n, p, 100+int(n%7))
	ev.Actor = actor
	h.events = append(h.events, ev)
}

// genEvent is event n of the log, version v of turn id, stored in size
// bytes, appended by a runtime's credential.
func genEvent(id string, v int64, n uint64, p turn.Payload, size int) turn.Event {
	return turn.Event{
		ID: uuid.NewSHA1(uuid.NameSpaceOID, fmt.Appendf(nil, "%s/%d", id, v)), Type: p.EventType(), SchemaVersion: 1,
		TurnID: id, OccurredAt: genBase.Add(time.Duration(n) * time.Second), Actor: domain.Actor{Name: "agent", Role: "runtime"},
		Payload: p, Version: v, Position: eventstore.Position{Commit: n * 10, Prepare: n * 10}, Size: size,
	}
}

func drawHistory(t *rapid.T) *history {
	h := &history{turns: map[string]*genTurn{}}
	n := rapid.IntRange(1, 120).Draw(t, "steps")
	for i := range n {
		var open []string
		for _, id := range h.order {
			if !h.turns[id].ended {
				open = append(open, id)
			}
		}
		if len(open) == 0 || rapid.IntRange(0, 5).Draw(t, "start") == 0 {
			id := fmt.Sprintf("t%02d", len(h.order))
			h.turns[id] = &genTurn{version: -1}
			h.order = append(h.order, id)
			h.add(id, &turn.TurnStarted{TurnID: id, WorkspaceID: rapid.SampledFrom([]string{"ws1", "ws2"}).Draw(t, "ws"), ThreadID: "th-" + id,
				Input: []byte(`[{"type":"text","text":"do ` + id + `"}]`)})
			mode := rapid.SampledFrom(genModes).Draw(t, "mode")
			prof := domain.TurnPermissionProfileSnapshot{Mode: mode, Source: domain.SourceComposer}
			h.add(id, &turn.ProfileSelected{Profile: prof})
			status := rapid.SampledFrom([]domain.EnforcementStatus{domain.EnforcementActive, domain.EnforcementPartiallyActive}).Draw(t, "enf")
			h.add(id, &turn.SecuritySnapshotResolved{Snapshot: genSnapshot(prof, status)})
			continue
		}
		id := rapid.SampledFrom(open).Draw(t, "turn")
		g := h.turns[id]
		act := turn.ActionRecord{ToolName: "shell", Kind: domain.ActionShellCommand, ScopeHash: fmt.Sprintf("h%d", i), Summary: fmt.Sprintf("ls %d", i)}
		switch rapid.IntRange(0, 6).Draw(t, "op") {
		case 0:
			h.add(id, &turn.DecisionAllowed{Decided: turn.Decided{ToolCallID: fmt.Sprintf("c%d", i), Action: act,
				Decision: turn.DecisionRecord{Behavior: domain.BehaviorAllow, Reason: domain.ReasonPolicyAllowsAction}}})
		case 1:
			h.add(id, &turn.DecisionDenied{Decided: turn.Decided{ToolCallID: fmt.Sprintf("c%d", i), Action: act,
				Decision: turn.DecisionRecord{Behavior: domain.BehaviorDeny, Reason: domain.ReasonPolicyDeniesAction}}})
		case 2, 3:
			rid := fmt.Sprintf("r-%s-%d", id, i)
			g.pending = append(g.pending, rid)
			h.add(id, &turn.ApprovalRequested{ToolCallID: fmt.Sprintf("c%d", i), Action: act, Mode: domain.ModeSupervised,
				Request:  turn.ApprovalRequest{RequestID: rid, TurnID: id, WorkspaceID: "ws1", ToolName: "shell", Action: domain.ActionShellCommand, Summary: act.Summary, Reason: domain.ReasonPolicyRequiresApproval},
				Decision: turn.DecisionRecord{Behavior: domain.BehaviorAsk, Reason: domain.ReasonPolicyRequiresApproval}, ExpiresAt: genBase.Add(time.Hour)})
		case 4:
			if len(g.pending) == 0 {
				continue
			}
			k := rapid.IntRange(0, len(g.pending)-1).Draw(t, "req")
			rid := g.pending[k]
			g.pending = append(g.pending[:k], g.pending[k+1:]...)
			h.add(id, &turn.ApprovalResolved{RequestID: rid, Resolution: rapid.SampledFrom([]domain.Resolution{domain.ResolutionAllowOnce, domain.ResolutionDeny}).Draw(t, "res"), Reason: domain.ReasonUserApproved})
		case 5:
			for _, rid := range g.pending {
				h.add(id, &turn.ApprovalResolved{RequestID: rid, Resolution: domain.ResolutionCancelled, Reason: domain.ReasonCancelled})
			}
			g.pending = nil
			g.ended = true
			switch rapid.IntRange(0, 2).Draw(t, "end") {
			case 0:
				h.add(id, &turn.TurnCompleted{})
			case 1:
				h.add(id, &turn.TurnInterrupted{TurnEnded: turn.TurnEnded{Reason: "stop"}})
			default:
				h.add(id, &turn.TurnFailed{TurnEnded: turn.TurnEnded{Reason: "boom"}})
			}
		case 6:
			prof := domain.TurnPermissionProfileSnapshot{Mode: domain.ModeSupervised, Source: domain.SourceComposer}
			h.add(id, &turn.ProfileChanged{Profile: prof, Snapshot: genSnapshot(prof, domain.EnforcementActive)})
		}
		// Records the engine still appends after a turn ended.
		for _, old := range h.order {
			if h.turns[old].ended && rapid.IntRange(0, 9).Draw(t, "late") == 0 {
				h.add(old, &turn.ExecFinished{ToolCallID: "late", ExitCode: 137, Stopped: "turn_ended", Quarantined: []string{"/ws/sub/.git"}})
				h.add(old, &turn.EgressTraffic{Origin: "https://example.com", Connections: 1})
			}
		}
	}
	return h
}

func genSnapshot(prof domain.TurnPermissionProfileSnapshot, status domain.EnforcementStatus) domain.TurnExecutionSecuritySnapshot {
	return domain.TurnExecutionSecuritySnapshot{PermissionProfile: prof,
		Sandbox:     domain.SandboxPolicy{Mode: domain.SandboxWorkspaceWrite, Cwd: "/w"},
		Network:     domain.NetworkPolicy{Mode: domain.NetworkRestricted},
		Backend:     domain.BackendSnapshot{ExecutionBackend: domain.BackendNative},
		Enforcement: domain.Enforcement{Status: status, Reason: "probe"}}
}
