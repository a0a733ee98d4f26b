package turn

import (
	"slices"
	"time"

	"turnstile/domain"
)

// Summary is a turn as clients see it: the fields of the turn itself, folded
// by Apply. It is both the engine's (State embeds one, and every command
// answers with a copy) and the read model's (projections.TurnView is this
// type), so the turn a command answers with and the turn a read returns are
// one fold of the same events. A copy shares nothing Apply changes later (a
// snapshot is never modified once resolved; Children is reallocated on
// every append).
type Summary struct {
	TurnID       string `json:"id"`
	WorkspaceID  string `json:"workspace_id"`
	ThreadID     string `json:"thread_id"`
	ParentTurnID string `json:"parent_turn_id,omitempty"`
	Status       Status `json:"status"`
	// Version is the revision of the last event applied; -1 before the first.
	Version  int64                                `json:"version"`
	Profile  domain.TurnPermissionProfileSnapshot `json:"permission_profile"`
	Snapshot domain.TurnExecutionSecuritySnapshot `json:"-"`
	// SnapshotVersion is the Version of the event the snapshot came from.
	SnapshotVersion int64 `json:"snapshot_version"`
	// Open counts the turn's approval requests in RequestOpen.
	Open int `json:"pending_approvals"`
	// Children are the child turns started under this turn, in order.
	Children  []string  `json:"-"`
	StartedAt time.Time `json:"started_at"`
	UpdatedAt time.Time `json:"updated_at"`
	EndedAt   time.Time `json:"ended_at,omitzero"`
}

// NewSummary is the summary of a turn with no events.
func NewSummary(turnID string) Summary {
	return Summary{TurnID: turnID, Version: -1, Status: StatusNone, SnapshotVersion: -1}
}

// Apply folds e into v. named is the state, before e, of the approval
// request e names (NamedRequest; RequestNone when the fold has not seen
// it); Apply returns its state after e. This is the one fold of a turn's own
// fields: Evolve and the read models both call it, every status comes from
// the transition tables (TurnTransitions through StatusAfter,
// RequestTransitions through RequestMove), and the open count changes only
// with a request's move. An event that names a request it cannot move (a
// second opening, a resolution of a request that is not open) moves
// nothing: a fold is total over stored history, and Decide never writes
// such an event.
func (v *Summary) Apply(e *Event, named RequestStatus) RequestStatus {
	v.Version, v.UpdatedAt = e.Version, e.OccurredAt
	switch p := e.Payload.(type) {
	case *TurnStarted:
		v.WorkspaceID, v.ThreadID, v.ParentTurnID, v.StartedAt = p.WorkspaceID, p.ThreadID, p.ParentTurnID, e.OccurredAt
	case *ProfileSelected:
		v.Profile = p.Profile
	case *SecuritySnapshotResolved:
		v.Snapshot, v.SnapshotVersion = p.Snapshot, e.Version
	case *ProfileChanged:
		if !p.Confirmed {
			v.Profile, v.Snapshot, v.SnapshotVersion = p.Profile, p.Snapshot, e.Version
		}
	case *ApprovalRequested, *ApprovalResolved:
		next, ok := RequestMove(named, p)
		if !ok {
			return named
		}
		if named == RequestOpen {
			v.Open--
		}
		if next == RequestOpen {
			v.Open++
		}
		named = next
	case *TurnCompleted, *TurnInterrupted, *TurnFailed:
		v.EndedAt = e.OccurredAt
	case *ChildTurnStarted:
		v.Children = append(slices.Clip(v.Children), p.ChildTurnID)
	}
	v.Status = StatusAfter(v.Status, e.Payload, v.Open)
	return named
}
