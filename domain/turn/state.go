package turn

import (
	"slices"
	"time"

	"turnstile/domain"
)

// State is a turn folded from its events. It is owned by one goroutine at a
// time (the engine holds the turn's lock while deciding and evolving).
type State struct {
	TurnID string
	// Version is the revision of the last event applied; -1 before the first.
	Version      int64
	Status       Status
	WorkspaceID  string
	ThreadID     string
	ParentTurnID string
	TaskCap      *domain.TaskCap
	RequestHash  string
	Inputs       Inputs
	Profile      domain.TurnPermissionProfileSnapshot
	Snapshot     domain.TurnExecutionSecuritySnapshot
	// SnapshotVersion is the Version of the event the snapshot came from.
	SnapshotVersion int64
	// Grants are the turn's allow_for_turn grants; a profile change clears them.
	Grants domain.GrantSet
	// Requests holds every approval request of the turn by id.
	Requests map[string]*Request
	// Open counts requests in RequestOpen.
	Open int
	// Calls records the first answer to each tool call id.
	Calls map[string]*Call
	// Ran holds the tool call ids reported as run (ToolCompleted).
	Ran map[string]struct{}
	// Children are the child turns started under this turn, in order.
	Children []string
	// LastHash is the chain hash of the last event applied.
	LastHash  string
	StartedAt time.Time
	UpdatedAt time.Time
	EndedAt   time.Time
}

// Summary is a turn's scalar state, safe to hand out: it shares nothing
// that Evolve changes (a snapshot is never modified once resolved).
type Summary struct {
	TurnID          string
	WorkspaceID     string
	ThreadID        string
	ParentTurnID    string
	Status          Status
	Version         int64
	Profile         domain.TurnPermissionProfileSnapshot
	Snapshot        domain.TurnExecutionSecuritySnapshot
	SnapshotVersion int64
	Open            int
	// Children are the child turns recorded on this turn.
	Children  []string
	StartedAt time.Time
	UpdatedAt time.Time
	EndedAt   time.Time
}

// Summary returns the turn's scalar state.
func (s *State) Summary() Summary {
	return Summary{
		TurnID: s.TurnID, WorkspaceID: s.WorkspaceID, ThreadID: s.ThreadID, ParentTurnID: s.ParentTurnID,
		Status: s.Status, Version: s.Version, Profile: s.Profile, Snapshot: s.Snapshot, SnapshotVersion: s.SnapshotVersion,
		Open: s.Open, Children: slices.Clip(s.Children), StartedAt: s.StartedAt, UpdatedAt: s.UpdatedAt, EndedAt: s.EndedAt,
	}
}

// Request is an approval request as the aggregate keeps it: the request
// exactly as its approval_requested event stored it (what an approver sees,
// in a decision's answer, over REST and over SSE alike: it is never rebuilt),
// and what the aggregate needs to decide about it.
type Request struct {
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
}

// NewState returns the state of a turn with no events.
func NewState(turnID string) *State {
	return &State{TurnID: turnID, Version: -1, Status: StatusNone, SnapshotVersion: -1}
}

// Evolve applies one event to s. It is total for valid histories: every event
// Decide can produce, in the order it produces them.
func Evolve(s *State, e *Event) { evolve(s, e) }

// evolve is Evolve, reporting whether it knows the event's payload
// (TestEvolveHandlesEveryRegisteredEvent walks the registry with it).
func evolve(s *State, e *Event) bool {
	s.Version, s.LastHash, s.UpdatedAt = e.Version, e.Hash, e.OccurredAt
	switch p := e.Payload.(type) {
	case *TurnStarted:
		s.WorkspaceID, s.ThreadID, s.ParentTurnID, s.TaskCap = p.WorkspaceID, p.ThreadID, p.ParentTurnID, p.TaskCap
		s.RequestHash, s.Inputs, s.StartedAt = p.RequestHash, p.Inputs, e.OccurredAt
		s.Grants, s.Requests, s.Calls, s.Ran = domain.GrantSet{}, map[string]*Request{}, map[string]*Call{}, map[string]struct{}{}
	case *ProfileSelected:
		s.Profile = p.Profile
	case *SecuritySnapshotResolved:
		s.Snapshot, s.SnapshotVersion = p.Snapshot, e.Version
	case *ProfileChanged:
		s.Profile, s.Snapshot, s.SnapshotVersion = p.Profile, p.Snapshot, e.Version
		s.Grants = domain.GrantSet{}
	case *DecisionAllowed:
		if c := s.Calls[p.ToolCallID]; c != nil && p.RequestID != "" {
			c.Consumed = true
		}
		s.recordCall(&p.DecisionRecorded)
	case *DecisionDenied:
		_, decided := s.Calls[p.ToolCallID]
		s.recordCall(&p.DecisionRecorded)
		// A sandbox refusal, or a later denial of a call already decided (a
		// revoked approval), is the call's final answer.
		if decided || p.Decision.Reason == domain.ReasonSandboxDenied {
			d := p.Decision.With(&p.Action)
			s.Calls[p.ToolCallID].Denial, s.Calls[p.ToolCallID].Refusal = &d, p.Refusal
		}
	case *ApprovalRequested:
		s.Requests[p.Request.RequestID] = s.openRequest(p, e.OccurredAt)
		if _, seen := s.Calls[p.ToolCallID]; !seen {
			s.Calls[p.ToolCallID] = &Call{ToolName: p.Action.ToolName, ScopeHash: p.Action.ScopeHash, Decision: p.Decision.With(&p.Action), RequestID: p.Request.RequestID,
				SnapshotVersion: s.SnapshotVersion, Mode: p.Mode}
		}
		s.Open++
	case *ApprovalResolved:
		r := s.Requests[p.RequestID]
		if r == nil {
			return true
		}
		resolved, ok := ResolveRequest(r.Status)
		if !ok {
			return true
		}
		r.Status, r.Resolution, r.ResolvedReason = resolved, p.Resolution, p.Reason
		if p.Resolution == domain.ResolutionAllowForTurn && r.SnapshotVersion == s.SnapshotVersion {
			s.Grants[r.Grant] = struct{}{}
		}
		s.Open--
	case *TurnCompleted, *TurnInterrupted, *TurnFailed:
		s.EndedAt = e.OccurredAt
	case *ToolCompleted:
		s.Ran[p.ToolCallID] = struct{}{}
	case *EgressTraffic:
		// Traffic counts are for the read models; the aggregate decides
		// nothing from them (each connection's decision is its own event).
	default:
		if !s.evolveExec(e) {
			return false
		}
	}
	s.Status = StatusAfter(s.Status, e.Payload, s.Open)
	return true
}

// openRequest is the request p opens at openedAt: the one place it is
// built, by Evolve for the state and by Decide for its answer. It keeps the
// event's request and action record as they are.
func (s *State) openRequest(p *ApprovalRequested, openedAt time.Time) *Request {
	return &Request{
		Request: p.Request, ToolCallID: p.ToolCallID, Seq: len(s.Requests), Status: RequestOpen,
		Grant:  domain.GrantKey{Mode: p.Mode, ToolName: p.Action.ToolName, Action: p.Action.Kind, ScopeHash: p.Action.ScopeHash},
		Action: p.Action, OpenedAt: openedAt, ExpiresAt: p.ExpiresAt, SnapshotVersion: s.SnapshotVersion,
	}
}

func (s *State) recordCall(d *DecisionRecorded) {
	if _, seen := s.Calls[d.ToolCallID]; seen {
		return
	}
	s.Calls[d.ToolCallID] = &Call{ToolName: d.Action.ToolName, ScopeHash: d.Action.ScopeHash, Decision: d.Decision.With(&d.Action), RequestID: d.RequestID,
		SnapshotVersion: s.SnapshotVersion, Mode: s.Snapshot.PermissionProfile.Mode}
}

// OpenRequests returns the open requests in the order they were opened.
func (s *State) OpenRequests() []*Request {
	out := make([]*Request, 0, s.Open)
	for _, r := range s.Requests {
		if r.Status == RequestOpen {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *Request) int { return a.Seq - b.Seq })
	return out
}
