package turn

import (
	"fmt"
	"slices"
	"time"

	"turnstile/domain"
)

// State is a turn folded from its events. It is owned by one goroutine at a
// time (the engine holds the turn's lock while deciding and evolving).
type State struct {
	// Summary is the turn itself, as clients see it (Summary.Apply folds
	// it, for the read models too).
	Summary
	TaskCap     *domain.TaskCap
	RequestHash string
	Inputs      Inputs
	// Grants are the turn's allow_for_turn grants; a profile change clears them.
	Grants domain.GrantSet
	// Approvals holds every approval request of the turn by id.
	Approvals map[string]*Approval
	// Calls records the first answer to each tool call id.
	Calls map[string]*Call
	// Ran holds the tool call ids reported as run (ToolCompleted), with
	// the invocation each report named.
	Ran map[string]RanCall
	// LastHash is the chain hash of the last event applied.
	LastHash string
	// StartedBy names the principal who started the turn (the engine's
	// cache charges the turn to it).
	StartedBy string
	// ProfileChangedBy is who made the turn's last profile change, or
	// gave the turn it carried its profile from that profile (zero when
	// none did), and CarriedProfile the profile that change gave: a Claude
	// Code session's next turn keeps a change another principal than the
	// hook's made. A later change by another principal who may not widen
	// (a runtime, the hook's, which narrows the turn further) leaves both
	// as they are: the agent, holding the hook's credential, would
	// otherwise end the carried change by narrowing the turn itself.
	ProfileChangedBy domain.Actor
	CarriedProfile   domain.TurnPermissionProfileSnapshot
	// ProfileChangedAt is when ProfileChangedBy's change was recorded (a
	// session's turn weighs its children's changes against its own).
	ProfileChangedAt time.Time
	// CarveLinks are where the carve-outs written through a symlink led
	// in every snapshot the turn has had (domain.CarveLinksOf): a profile
	// change binds them again, so that a change there and back through a
	// profile without the carve-out keeps the start's binding (the
	// sixty-third review).
	CarveLinks map[string][]string
}

// Approval is an approval request as the aggregate keeps it: the request
// exactly as its approval_requested event stored it (what an approver sees,
// in a decision's answer, over REST and over SSE alike: it is never rebuilt),
// and what the aggregate needs to decide about it.
type Approval struct {
	// Request is the event's TurnPermissionApprovalRequest, as stored.
	Request    ApprovalRequest
	ToolCallID string
	Seq        int // order of opening within the turn
	Status     RequestStatus
	Resolution domain.Resolution
	Grant      domain.GrantKey
	// Action is the event's action record (with the files a profile change
	// evaluates again; its summary and details are the request's).
	Action    ActionRecord
	OpenedAt  time.Time
	ExpiresAt time.Time
	// SnapshotVersion is the snapshot the request was opened under; an
	// allow_for_turn grant counts only while that snapshot is in force.
	SnapshotVersion int64
	// ResolvedReason is the reason recorded when it was resolved
	// (permissions_changed when a permission change resolved it).
	ResolvedReason domain.Reason
	// RecheckURL is the event's: the origin an allow looks up first.
	RecheckURL string
}

// Call is what happened to a tool call id: its first (policy) decision, the
// request it opened, whether an approved run was consumed, and a sandbox
// refusal.
type Call struct {
	ToolName  string
	ScopeHash string
	Decision  domain.Decision
	RequestID string
	// Consumed is set once an approved call was allowed to run (streams
	// written before exec.started existed).
	Consumed bool
	// Started is set once exec.started was recorded: it never runs again.
	Started bool
	// Finished is what the started command did, once recorded.
	Finished *ExecFinished
	// SnapshotVersion and Mode are the snapshot the first decision was
	// made under.
	SnapshotVersion int64
	Mode            domain.Mode
	// Denial is the sandbox's refusal of the call, if any, and its code.
	Denial  *domain.Decision
	Refusal string
	// By is the name of the principal whose decision first recorded the
	// call: another principal naming its id is refused (foreignCall).
	By string
}

// NewState returns the state of a turn with no events.
func NewState(turnID string) *State {
	return &State{Summary: NewSummary(turnID)}
}

// Evolve applies one event to s. It is total for valid histories: every event
// Decide can produce, in the order it produces them.
func Evolve(s *State, e *Event) { evolve(s, e) }

// evolve is Evolve, reporting whether it knows the event's payload
// (TestEvolveHandlesEveryRegisteredEvent walks the registry with it).
func evolve(s *State, e *Event) bool {
	s.LastHash = e.Hash
	named := RequestNone
	if r := s.Approvals[NamedRequest(e.Payload)]; r != nil {
		named = r.Status
	}
	moved := s.Summary.Apply(e, named)
	switch p := e.Payload.(type) {
	case *TurnStarted:
		s.TaskCap, s.RequestHash, s.Inputs, s.StartedBy = p.TaskCap, p.RequestHash, p.Inputs, e.Actor.Name
		s.ProfileChangedBy, s.ProfileChangedAt = domain.Actor{}, time.Time{}
		if p.ProfileCarried != nil {
			s.ProfileChangedBy, s.ProfileChangedAt = p.ProfileCarried.By, e.OccurredAt
		}
		s.Grants, s.Approvals, s.Calls, s.Ran = domain.GrantSet{}, map[string]*Approval{}, map[string]*Call{}, map[string]RanCall{}
	case *ProfileSelected:
		if s.ProfileChangedBy != (domain.Actor{}) {
			s.CarriedProfile = p.Profile
		}
	case *SecuritySnapshotResolved:
		s.CarveLinks = domain.MergeCarveLinks(s.CarveLinks, domain.CarveLinksOf(&s.Snapshot))
	case *TurnCompleted, *TurnInterrupted, *TurnFailed:
		// The turn's own fields only (Summary.Apply).
	case *ProfileChanged:
		s.CarveLinks = domain.MergeCarveLinks(s.CarveLinks, domain.CarveLinksOf(&s.Snapshot))
		if !p.Confirmed {
			s.Grants = domain.GrantSet{}
		}
		// A child bounded by its parent's change keeps its own: the
		// parent holds that change (a Claude Code session's turn reads
		// its children's own changes, ccChildCarried).
		if by := s.ProfileChangedBy; !p.FromParent && (by == (domain.Actor{}) || e.Actor.Name == by.Name || e.Actor.Role == "" || e.Actor.Role.Allows(domain.OpTurnWidenProfile)) {
			s.ProfileChangedBy, s.CarriedProfile, s.ProfileChangedAt = e.Actor, p.Profile, e.OccurredAt
		}
	case *DecisionAllowed:
		if c := s.Calls[p.ToolCallID]; c != nil && p.RequestID != "" {
			c.Consumed = true
		}
		s.recordCall(&p.Decided, e.Actor.Name)
	case *DecisionDenied:
		_, decided := s.Calls[p.ToolCallID]
		s.recordCall(&p.Decided, e.Actor.Name)
		// A sandbox refusal, or a later denial of a call already decided (a
		// revoked approval), is the call's final answer.
		if decided || p.Decision.Reason == domain.ReasonSandboxDenied {
			d := p.Decision.With(&p.Action)
			s.Calls[p.ToolCallID].Denial, s.Calls[p.ToolCallID].Refusal = &d, p.Refusal
		}
	case *ApprovalRequested:
		if moved == named {
			return true
		}
		s.Approvals[p.Request.RequestID] = s.openApproval(p, e.OccurredAt, moved)
		if _, seen := s.Calls[p.ToolCallID]; !seen {
			s.Calls[p.ToolCallID] = &Call{ToolName: p.Action.ToolName, ScopeHash: p.Action.ScopeHash, Decision: p.Decision.With(&p.Action), RequestID: p.Request.RequestID,
				SnapshotVersion: s.SnapshotVersion, Mode: p.Mode, By: e.Actor.Name}
		}
	case *ApprovalResolved:
		if moved == named {
			return true
		}
		r := s.Approvals[p.RequestID]
		r.Status, r.Resolution, r.ResolvedReason = moved, p.Resolution, p.Reason
		if p.Resolution == domain.ResolutionAllowForTurn && r.SnapshotVersion == s.SnapshotVersion {
			s.Grants[r.Grant] = struct{}{}
		}
	case *ToolCompleted:
		s.Ran[p.ToolCallID] = RanCall{ToolName: p.Action.ToolName, ScopeHash: p.Action.ScopeHash}
	case *EgressTraffic:
		// Traffic counts are for the read models; the aggregate decides
		// nothing from them (each connection's decision is its own event).
	default:
		return s.evolveExec(e)
	}
	return true
}

// openApproval is the request p opens at openedAt, in state status (the
// request table's): the one place it is built, by Evolve for the state and
// by Decide for its answer. It keeps the event's request and action record
// as they are.
func (s *State) openApproval(p *ApprovalRequested, openedAt time.Time, status RequestStatus) *Approval {
	return &Approval{
		Request: p.Request, ToolCallID: p.ToolCallID, Seq: len(s.Approvals), Status: status,
		Grant:  domain.GrantKey{Mode: p.Mode, ToolName: p.Action.ToolName, Action: p.Action.Kind, ScopeHash: p.Action.ScopeHash},
		Action: p.Action, OpenedAt: openedAt, ExpiresAt: p.ExpiresAt, SnapshotVersion: s.SnapshotVersion, RecheckURL: p.RecheckURL,
	}
}

func (s *State) recordCall(d *Decided, by string) {
	if _, seen := s.Calls[d.ToolCallID]; seen {
		return
	}
	s.Calls[d.ToolCallID] = &Call{ToolName: d.Action.ToolName, ScopeHash: d.Action.ScopeHash, Decision: d.Decision.With(&d.Action), RequestID: d.RequestID,
		SnapshotVersion: s.SnapshotVersion, Mode: s.Snapshot.PermissionProfile.Mode, By: by}
}

// RanCall is the invocation a report of a tool call as run named.
type RanCall struct{ ToolName, ScopeHash string }

// foreignCall refuses a decision, a report or a run that names the id of
// a call another principal's decision recorded, whatever it names: the
// answer compared what it names with the call (the stored decision,
// replayed, for the same invocation; tool_call_reused for another), and a
// runtime credential of the workspace, reading the id of another's pending
// request, learned one guess at a time which command with a redacted
// secret the call held, silently (the twenty-eighth review). A call
// recorded without an actor, or a command without one, is not judged so.
func foreignCall(call *Call, m *Meta, id string) error {
	if call == nil || call.By == "" || m.Actor.Name == "" || m.Actor.Name == call.By {
		return nil
	}
	return &ConflictError{Code: "tool_call_reused", Message: fmt.Sprintf("tool_call_id %s was already decided for a call of another principal", id)}
}

// OpenRequest reports whether id names an approval request of the turn
// that is open.
func (s *State) OpenRequest(id string) bool {
	r := s.Approvals[id]
	return id != "" && r != nil && r.Status == RequestOpen
}

// OpenApprovals returns the open requests in the order they were opened.
func (s *State) OpenApprovals() []*Approval {
	out := make([]*Approval, 0, s.Open)
	for _, r := range s.Approvals {
		if r.Status == RequestOpen {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *Approval) int { return a.Seq - b.Seq })
	return out
}
